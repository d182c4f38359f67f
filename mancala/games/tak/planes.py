"""A Tak position as planes (channels x size x size, float32 in 0..1) from one seat's
side, for environments and networks: "mine" is the seat's colour, "theirs" the other.

- `size` pairs of planes: the owner of the piece at each depth of every stack, the top
  first (mine, theirs; both 0 where the stack is shorter);
- the kind of the top piece: my wall, my capstone, their wall, their capstone;
- the stack height, as a fraction of all the pieces of the game;
- the reserves, each as a fraction of the set: my stones, my capstones, their stones,
  their capstones (constant planes);
- whether the seat is to move (a constant plane).

>>> from mancala.games.tak.state import from_tps
>>> s = from_tps("x3/x,12S,x/x3 1 3")  # b2: white flat under a black wall
>>> p = planes(s, 1)  # black's side
>>> p.shape, float(p[0, 1, 1]), float(p[3, 1, 1]), float(p[2 * 3, 1, 1])
((16, 3, 3), 1.0, 1.0, 1.0)
"""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit
from mancala.games.tak.fast import CAP, FLAT, HEIGHTS, PLY, RESERVES, SIZE, play, result, unplay
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.state import TakState


def channels(size: int) -> int:
    """How many planes a board of `size` has."""
    return 2 * size + 4 + 1 + 4 + 1


def planes(state: TakState, seat: int) -> np.ndarray:
    """The planes of `state` seen from `seat` (see the module text)."""
    size = state.size
    stones, caps = PIECES[size]
    out = np.zeros((channels(size), size, size), np.float32)
    kinds = 2 * size
    for square, stack in enumerate(state.board):
        row, column = divmod(square, size)
        for depth, piece in enumerate(reversed(stack[-size:])):
            out[2 * depth + (piece.player != seat), row, column] = 1
        if stack and stack[-1].kind != "F":
            mine = 0 if stack[-1].player == seat else 2
            out[kinds + mine + (stack[-1].kind == "C"), row, column] = 1
        out[kinds + 4, row, column] = len(stack) / (2 * (stones + caps))
    for i, player in enumerate((seat, 1 - seat)):
        left_stones, left_caps = state.reserves(player)
        out[kinds + 5 + 2 * i] = left_stones / stones
        out[kinds + 6 + 2 * i] = left_caps / caps if caps else 0
    out[kinds + 9] = state.player == seat
    return out


@njit(cache=True, nogil=True)
def planes_into(meta, colours, seat, stones, caps, out):
    """`planes` of `fast`'s position (`meta`, `colours`) seen from `seat`, written into
    `out` (channels x size x size, zeroed here); `stones` and `caps` are a player's set."""
    size = meta[SIZE]
    squares = size * size
    kinds = 2 * size
    out[:] = 0
    for square in range(squares):
        row, column = square // size, square % size
        height = meta[HEIGHTS + square]
        for depth in range(min(height, size)):
            out[2 * depth + (colours[square, height - 1 - depth] != seat), row, column] = 1
        kind = meta[HEIGHTS + squares + square]
        if height and kind != FLAT:
            mine = 0 if colours[square, height - 1] == seat else 2
            out[kinds + mine + (kind == CAP), row, column] = 1
        out[kinds + 4, row, column] = height / (2 * (stones + caps))
    for i in range(2):
        player = seat if i == 0 else 1 - seat
        out[kinds + 5 + 2 * i] = meta[RESERVES + 2 * player] / stones
        out[kinds + 6 + 2 * i] = meta[RESERVES + 2 * player + 1] / caps if caps else 0
    out[kinds + 9] = meta[PLY] % 2 == seat


@njit(cache=True, nogil=True)
def afterstate_planes(meta, colours, actions, stones, caps, out):
    """The `result` code after each of `actions` (legal in `fast`'s position `meta`,
    `colours`; -1 where the game goes on); the planes of the positions where it goes on,
    from the mover's side, go into `out` one after the other, in the order of `actions`."""
    mover = meta[PLY] % 2
    results = np.empty(len(actions), np.int64)
    n = 0
    for k in range(len(actions)):
        before = play(meta, colours, actions[k])
        results[k] = result(meta, colours)
        if results[k] < 0:
            planes_into(meta, colours, mover, stones, caps, out[n])
            n += 1
        unplay(meta, colours, actions[k], before)
    return results


SYMMETRIES = 8  # the square's: four turns, each also mirrored


def symmetric(planes: np.ndarray, symmetry: int) -> np.ndarray:
    """Planes (..., S, S) under one of the square's SYMMETRIES (0: as they are): turned
    a quarter `symmetry % 4` times, then mirrored from 4 on. Tak's rules do not see them:
    the turned position has the same moves, turned, and the same value.

    >>> p = np.arange(4).reshape(2, 2)
    >>> [symmetric(p, k).ravel().tolist() for k in (0, 1, 4)]
    [[0, 1, 2, 3], [1, 3, 0, 2], [2, 3, 0, 1]]
    """
    turned = np.rot90(planes, symmetry % 4, axes=(-2, -1))
    return turned[..., ::-1, :] if symmetry >= 4 else turned
