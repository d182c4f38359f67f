"""A move seed by seed, for the page to animate.

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

from mancala.game_state import GameState
from mancala.games.sowing.events import Traced, trace_move

MAX_FRAMES = 400  # a longer move (Sungka relays) is thinned to this many boards


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
