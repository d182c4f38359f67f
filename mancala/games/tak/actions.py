"""Tak's fixed action encoding: every placement and every stack move of a board size has
one id in `range(num_actions(size))`, the same in every position (networks use it).

Squares are numbered `row * size + column`, row 0 being rank 1 and column 0 file a, so
a1 is 0, b1 is 1 and a2 is `size`.

- Placements come first: `square * 3 + kind`, kind 0 a flat, 1 a wall (standing
  stone), 2 a capstone.
- Moves follow: `3 * size**2 + (square * 4 + direction) * (2**size - 1) + pattern - 1`.
  Directions are 0 `+` (up a rank), 1 `-` (down a rank), 2 `>` (right a file),
  3 `<` (left a file). The pattern (1 .. 2**size - 1) says how many pieces are carried
  and how they are dropped: one binary digit per carried piece, lowest first, in the
  order the pieces are dropped (the bottom of the carried stack first); a 1 marks the
  last piece dropped on a square. The number of digits (the highest set bit) is the
  carry count. So pattern 1 carries one piece one square, 0b100 carries three pieces
  one square, 0b101 drops one then two (PTN `3c3>12`) and 0b111 drops one on each of
  three squares.

>>> num_actions(5)
3175
>>> decode(5, 0), decode(5, 74)
(Place(square=0, kind='F'), Place(square=24, kind='C'))
>>> shift = Shift(square=12, direction=2, drops=(1, 2))
>>> pattern_of(shift.drops), drops_of(0b101)
(5, (1, 2))
>>> decode(5, encode(5, shift)) == shift
True
"""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

KINDS = "FSC"  # flat, standing stone (wall), capstone
DIRECTIONS = "+-><"
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))  # (rows, columns) per direction


class Place(NamedTuple):
    """Put a piece of `kind` (F, S or C) on the empty `square`."""

    square: int
    kind: str


class Shift(NamedTuple):
    """Pick up `sum(drops)` pieces from `square` and drop them one square at a time in
    `direction`, `drops[i]` on the i-th square passed."""

    square: int
    direction: int
    drops: tuple[int, ...]

    @property
    def carry(self) -> int:
        """How many pieces leave the square."""
        return sum(self.drops)


Move = Place | Shift


def num_patterns(size: int) -> int:
    """Drop patterns of a size: every carry of 1..size split in every way."""
    return 2**size - 1


def num_actions(size: int) -> int:
    """How many action ids a board of `size` has."""
    squares = size * size
    return 3 * squares + 4 * squares * num_patterns(size)


def pattern_of(drops: tuple[int, ...]) -> int:
    """The pattern number of a drop sequence (see the module text)."""
    pattern, bit = 0, -1
    for drop in drops:
        bit += drop
        pattern |= 1 << bit
    return pattern


def drops_of(pattern: int) -> tuple[int, ...]:
    """The drop sequence of a pattern number (see the module text)."""
    drops, count = [], 0
    for bit in range(pattern.bit_length()):
        count += 1
        if pattern >> bit & 1:
            drops.append(count)
            count = 0
    return tuple(drops)


def encode(size: int, move: Move) -> int:
    """The action id of `move` on a board of `size`."""
    if isinstance(move, Place):
        return move.square * 3 + KINDS.index(move.kind)
    line = move.square * 4 + move.direction
    return 3 * size * size + line * num_patterns(size) + pattern_of(move.drops) - 1


def decode(size: int, action: int) -> Move:
    """The move of an action id; ValueError when the id is out of range."""
    if isinstance(action, bool) or not isinstance(action, Integral):
        raise ValueError(f"a Tak move is an action id (an int), not {action!r}")
    action = int(action)
    if not 0 <= action < num_actions(size):
        raise ValueError(f"action {action} is out of range 0..{num_actions(size) - 1}")
    placements = 3 * size * size
    if action < placements:
        return Place(action // 3, KINDS[action % 3])
    line, pattern = divmod(action - placements, num_patterns(size))
    square, direction = divmod(line, 4)
    return Shift(square, direction, drops_of(pattern + 1))
