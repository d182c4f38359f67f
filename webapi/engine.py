"""What the API needs from the lab: players made once per name, and a move seed by seed.

Players come from the registry only (`make_player`), within the API's `Limits`; a made
player is kept per spec, because a network player costs a Keras load. A player serves
one request at a time (search players keep tables between moves and are not written
for two threads at once); a request that finds every player of its spec busy gets a new
one rather than waiting, so a request's time is its own search's, bounded by the limits.

`sow_frames` plays a move through the real rules (mancala.games.sowing.events traces
mancala.game_state's own sowing) and gives the board after every seed dropped, so the page
can animate a move without a copy of the rules in JavaScript, and what the move did:

>>> from mancala.game_state import GameState
>>> seen = sow_frames(GameState.new(houses=3, seeds=2), 1)
>>> seen.after.board, seen.after.player, seen.events.words()
((2, 0, 3, 1, 2, 2, 2, 0), 0, ['extra turn'])
>>> [list(f) for f in seen.frames]  # doctest: +NORMALIZE_WHITESPACE
[[2, 0, 2, 0, 2, 2, 2, 0], [2, 0, 3, 0, 2, 2, 2, 0], [2, 0, 3, 1, 2, 2, 2, 0]]
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from mancala.ai.base import Player
from mancala.ai.limits import REGISTRY_LIMITS, Limits
from mancala.ai.registry import (
    available_players,
    describe_player,
    make_player,
    split_spec,
    tournament_players,
)
from mancala.game_state import GameState
from mancala.games import game_names, new_game
from mancala.games.sowing.events import Traced, trace_move
from webapi.ratings import NOT_RATED, rating_of

MAX_FRAMES = 400  # a longer move (Sungka relays) is thinned to this many boards


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


def sow_frames(state: GameState, move: int) -> Traced:
    """The position after `move`, the boards in between (ending with the final board) and
    the move's events. IllegalMove as `state.play` raises it. A move of more than
    MAX_FRAMES boards is thinned evenly."""
    seen = trace_move(state, move)
    frames = seen.frames
    if len(frames) > MAX_FRAMES:
        step = len(frames) / MAX_FRAMES
        frames = [frames[int(i * step)] for i in range(MAX_FRAMES - 1)] + [frames[-1]]
    return seen._replace(frames=frames)


def player_catalogue() -> list[dict]:
    """Every computer player that can be made here: name, spec to use, its words
    (`describe_player` of that spec), variants, and its rating in the shipped tournament
    (webapi.ratings: "rating" null and "level" "not rated" when the file does not name it).

    The spec is the registry's quick form where it has one (e.g. a shallower search),
    so a person at the page does not wait long for a move.
    """
    specs: dict[str, str] = {}
    variants: dict[str, list[str]] = {}
    for variant in game_names():
        for spec in tournament_players(variant):
            name = split_spec(spec)[0]
            specs.setdefault(name, spec)
            variants.setdefault(name, []).append(variant)
    return [
        _entry(name, specs[name], variants[name])
        for name in available_players(include_interactive=False)
        if name in variants
    ]


def _entry(name: str, spec: str, variants: list[str]) -> dict:
    rated = rating_of(spec)
    return {
        "name": name,
        "spec": spec,
        "summary": describe_player(spec),
        "variants": variants,
        "rating": rated,
        "level": rated["level"] if rated else NOT_RATED,
    }


class PlayerPool:
    """Players made by spec on first use and kept for later requests: at most `size` idle
    players, the least recently used dropped first. Each is lent to one caller at a time."""

    def __init__(
        self, size: int = 32, seed: int | None = None, limits: Limits = REGISTRY_LIMITS
    ) -> None:
        self.size, self.seed, self.limits = size, seed, limits
        self._idle: OrderedDict[str, list[Player]] = OrderedDict()
        self._lock = threading.Lock()

    @contextmanager
    def player(self, spec: str) -> Iterator[Player]:
        """The player `spec`, held for the caller alone; ValueError if it cannot be made."""
        with self._lock:
            idle = self._idle.get(spec)
            player = idle.pop() if idle else None
        if player is None:
            player = make_player(spec, seed=self.seed, limits=self.limits)
        try:
            yield player
        finally:
            self._keep(spec, player)

    def _keep(self, spec: str, player: Player) -> None:
        with self._lock:
            self._idle.setdefault(spec, []).append(player)
            self._idle.move_to_end(spec)
            while sum(map(len, self._idle.values())) > self.size:
                oldest = next(iter(self._idle))
                self._idle[oldest].pop(0)
                if not self._idle[oldest]:
                    del self._idle[oldest]
