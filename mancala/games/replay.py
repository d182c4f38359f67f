"""Moves played again from a position, through the game protocol alone (`state.play`):
any game, an IllegalMove (a ValueError) for a move the position does not allow.

>>> from mancala.games import new_game
>>> start = new_game("tak", size=3)
>>> [s.player for s in positions(start, [0, 3, 6])], replayed(start, []) == start
([0, 1, 0, 1], True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def positions(start: Any, moves: Sequence[int]) -> list[Any]:
    """`start` and the position after each of `moves`, in order (len(moves) + 1)."""
    states = [start]
    for move in moves:
        states.append(states[-1].play(move))
    return states


def replayed(start: Any, moves: Sequence[int]) -> Any:
    """The position after `moves` played from `start`."""
    for move in moves:
        start = start.play(move)
    return start
