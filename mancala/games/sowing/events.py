"""A move played through the real rules (`mancala.game_state`), watched as it happens:
the board after every seed dropped (so a page can animate it) and what the move did
(a capture, an extra turn, relay pick-ups), for Kalah and Sungka alike.

Nothing here repeats a rule. `GameState`'s own `_sow` and `_replace` are observed: every
sowing records its boards and its last pit, and the first board the move settles on
(after a capture, before Kalah's end-of-game sweep) is kept. A capture is then what the
mover's store gained after the last sowing; an extra turn is a last seed in the mover's
own store with the game going on.

>>> from mancala.game_state import GameState
>>> seen = trace_move(GameState.new(houses=3, seeds=2), 1)
>>> seen.after.board, seen.after.player  # the last seed fell in the store
((2, 0, 3, 1, 2, 2, 2, 0), 0)
>>> [list(f) for f in seen.frames]  # doctest: +NORMALIZE_WHITESPACE
[[2, 0, 2, 0, 2, 2, 2, 0], [2, 0, 3, 0, 2, 2, 2, 0], [2, 0, 3, 1, 2, 2, 2, 0]]
>>> seen.events.words()
['extra turn']
>>> capture = GameState.new(board=(1, 0, 4, 4, 4, 4, 0, 4, 4, 4, 4, 3, 4, 8))
>>> trace_move(capture, 0).events
MoveEvents(capture=4, extra_turn=False, passes=False, pickups=0)
>>> relay = GameState.new("sungka", board=(0, 0, 0, 0, 0, 0, 3, 40, 0, 3, 0, 0, 0, 1, 0, 51))
>>> trace_move(relay, 6).events.words()
['relay: 2 pick-ups', 'capture 2']
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

from mancala.game_state import GameState

_trace = threading.local()


@dataclass(frozen=True)
class MoveEvents:
    """What a move did, beyond sowing."""

    capture: int = 0  # seeds a capture (Sungka: sunog) put in the mover's store
    extra_turn: bool = False  # the last seed fell in the mover's store: they move again
    passes: bool = False  # the opponent has no move, so the mover moves again (Sungka)
    pickups: int = 0  # relay sowings: houses picked up and sown on (Sungka)

    def words(self) -> list[str]:
        """The events in words, as the move log and the terminal game show them."""
        said = [f"relay: {self.pickups} pick-up{'s' * (self.pickups != 1)}"] * bool(self.pickups)
        said += [f"capture {self.capture}"] * bool(self.capture)
        said += ["extra turn"] * self.extra_turn
        said += ["the opponent has no move: another turn"] * self.passes
        return said

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe, with the words."""
        return asdict(self) | {"words": self.words()}


class Traced(NamedTuple):
    after: GameState  # the position after the move
    frames: list[tuple[int, ...]]  # the board after every seed dropped, then the final one
    events: MoveEvents


class _RecordingBoard(list):
    """A list that appends a copy of itself to `frames` after every item set."""

    def __init__(self, board: list[int], frames: list[tuple[int, ...]]) -> None:
        super().__init__(board)
        self.frames = frames

    def __setitem__(self, index, value) -> None:  # type: ignore[override]
        super().__setitem__(index, value)
        self.frames.append(tuple(self))


class _TracedState(GameState):
    """GameState that reports each sowing and the board a move settles on (the rules are
    GameState's own, unchanged)."""

    __slots__ = ()

    def _sow(self, board: list[int], pit: int) -> int:
        recording = _RecordingBoard(board, _trace.frames)
        last = super()._sow(recording, pit)
        board[:] = recording
        _trace.sowings.append((tuple(board), last))
        return last

    def _replace(self, **changes: Any) -> GameState:
        if "board" in changes and _trace.settled is None:
            _trace.settled = tuple(changes["board"])
        return super()._replace(**changes)


def trace_move(state: GameState, move: int) -> Traced:
    """`state` after `move`, the boards on the way and the move's events; IllegalMove as
    `state.play` raises it. A capture or the end-of-game sweep shows as the final board."""
    frames: list[tuple[int, ...]] = []
    sowings: list[tuple[tuple[int, ...], int]] = []
    _trace.frames, _trace.sowings, _trace.settled = frames, sowings, None
    try:
        after = GameState(*_TracedState(*state).play(move))
        settled = _trace.settled
    finally:
        _trace.frames, _trace.sowings, _trace.settled = [], [], None
    if not frames or frames[-1] != after.board:
        frames.append(after.board)
    return Traced(after, frames, _events(state, after, sowings, settled))


def _events(
    before: GameState,
    after: GameState,
    sowings: list[tuple[tuple[int, ...], int]],
    settled: tuple[int, ...],
) -> MoveEvents:
    store = before.store(before.player)
    sown, last = sowings[-1]
    going_on = not after.is_over()
    extra = last == store and going_on
    return MoveEvents(
        capture=settled[store] - sown[store],
        extra_turn=extra,
        passes=going_on and after.player == before.player and not extra,
        pickups=len(sowings) - 1,
    )


def move_events(state: GameState, move: int) -> MoveEvents:
    """What `move` does in `state` (see `MoveEvents`)."""
    return trace_move(state, move).events


def store_lead(state: GameState) -> float:
    """The evaluator of Kalah and Sungka for the generic searches: the seeds the player to
    move has in store more than the opponent (at the end, after the sweep), as the numba
    minimax values its horizon.

    >>> store_lead(GameState.new().play(2)), store_lead(GameState.new().play(0))
    (1.0, 0.0)
    """
    scores = state.scores()
    return float(scores[state.player] - scores[1 - state.player])
