"""What the API needs from the lab: kernels compiled before serving (`warm_up`), players
lent per request (`webapi.pool`), the catalogue of players (`webapi.catalogue`) and a move
seed by seed (`webapi.frames`)."""

from __future__ import annotations

from mancala.ai.registry import make_player
from mancala.game_state import GameState
from mancala.games import new_game
from webapi.catalogue import player_catalogue
from webapi.frames import MAX_FRAMES, sow_frames
from webapi.pool import PlayerPool

__all__ = ["MAX_FRAMES", "PlayerPool", "player_catalogue", "sow_frames", "warm_up"]

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
    tak = new_game("tak", size=3)
    for spec in ("minimax:2", "mcts:50"):
        make_player(spec, seed=0).choose_move(tak)
