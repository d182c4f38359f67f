"""What the API needs from the lab: kernels compiled before serving (`warm_up`), each
worker's networks and tables loaded before it serves (`prepare_worker`), players
lent per request (`webapi.pool`), the catalogue of players (`webapi.catalogue`) and a move
seed by seed (`webapi.frames`)."""

from __future__ import annotations

from mancala.ai.limits import Limits
from mancala.ai.registry import is_search, make_player, players_for, reads_files
from mancala.game_state import GameState
from mancala.games import game_names, new_game
from mancala.games.tak.state import TakState
from webapi.catalogue import player_catalogue
from webapi.frames import MAX_FRAMES, sow_frames
from webapi.pool import PlayerPool

__all__ = [
    "MAX_FRAMES",
    "PlayerPool",
    "player_catalogue",
    "prepare_worker",
    "sow_frames",
    "warm_up",
]

WARM_UP_SPECS = ("minimax:2", "mcts:50", "nmcts:50")  # one of each numba search kernel


def warm_up() -> None:
    """Compile the search kernels (or load them from numba's cache) before serving, so
    that no request pays for compiling and no deadline is spent on it: the sowing ones,
    and Tak's alpha-beta and random playouts."""
    state = GameState.new(houses=3, seeds=2)
    for spec in WARM_UP_SPECS:
        player = make_player(spec, seed=0)
        player.choose_move(state)
        player.evaluate(state)
    tak = new_game(TakState.game, size=3)
    for spec in ("minimax:2", "mcts:50"):
        make_player(spec, seed=0).choose_move(tak)


def prepare_worker(limits: Limits) -> None:
    """Load in a worker, before it takes requests, what its searches read from files: Keras
    and TensorFlow, and for every game each searching player's network or table (az's
    network, the solver's endgame database), by a move of each within `limits` cut to a
    twentieth of a second. Loaded during a request, they would take seconds of its time
    (and of the GIL); they cannot be loaded in the master (TensorFlow does not survive a
    fork); later players of the same kind share them."""
    import keras  # noqa: F401

    quick = limits.within(0.05)
    for game in game_names():
        state = new_game(game)
        for name in players_for(state):
            if reads_files(name) and is_search(name):
                make_player(name, seed=0, limits=quick).evaluate(state)
