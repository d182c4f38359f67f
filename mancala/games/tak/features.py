"""Hand-made feature planes of Tak positions, worked out from the planes themselves
(`planes.py`: the top of each stack and its kind), so that recorded planes need nothing
more. Each is a plane from the planes' seat ("mine") or the other's ("theirs"):

- where a piece placed would finish a road (`evaluate.road_in_one`): mine, theirs;
- where a road piece next to the square, moved there, would: mine, theirs;
- the squares held (`evaluate.held`, `fast.held`): mine, theirs;
- on each road piece, how far its group reaches (`evaluate.groups`): the most ranks or
  files the group touches, over the board's size; mine, theirs;
- where a move that would finish a road now starts, by any move of the rules (a piece
  placed, a stack moved or spread): the square placed on or the stack moved; mine,
  theirs (each as if it were its turn);
- where a move that makes a road in one starts (squares where a piece placed or moved
  would finish a road, `evaluate.road_in_one`, beside those there were): 1/2 for one
  such square, 1 for two or more (a double threat, which one move seldom stops); mine,
  theirs (each as if it were its turn).

The first six are what the evaluator sees beyond the pieces (`evaluate.value`), given to
a network to learn from rather than to sum with fixed weights. The last four look a move
ahead by the rules' own moves: the position the planes show is rebuilt (`fast.to_arrays`'
arrays; a stack's pieces deeper than the planes show take the colour of the deepest
shown) and every move of each player is played and taken back.

>>> from mancala.games.tak.planes import planes
>>> from mancala.games.tak.state import from_tps
>>> s = from_tps("2,2,2,x2/x5/x5/x5/1,1,1,1,x 1 5")  # white's a1-d1: a road in one at e1
>>> f = feature_planes(planes(s, 0)[None])[0]  # white's side
>>> f.shape, np.flatnonzero(f[0]).tolist(), int(f[1:4].sum())  # e1 is square 4
((12, 5, 5), [4], 0)
>>> np.flatnonzero(f[8]).tolist(), int(f[9].sum())  # the flat placed on e1
([4], 0)
>>> f[4].astype(int)  # white holds the squares its flats touch, row 1 (a1-e1) first
array([[1, 1, 1, 1, 1],
       [1, 1, 1, 1, 0],
       [0, 0, 0, 0, 0],
       [0, 0, 0, 0, 0],
       [0, 0, 0, 0, 0]])
>>> f[6, 0], f[7, 4]  # white's a1-d1 touches 4 files, black's a5-c5 3
(array([0.8, 0.8, 0.8, 0.8, 0. ], dtype=float32), array([0.6, 0.6, 0.6, 0. , 0. ], dtype=float32))
>>> s = from_tps("2,2,2,x2/x4,2/x5/x5/1,1,1,1,x 1 6")  # black's a5-c5 and e4
>>> f = feature_planes(planes(s, 1)[None])[0]  # black's side
>>> f[10, 3:].astype(float)  # d5 or d4 placed makes two roads in one; c4, e4 moved or e5 one
array([[0. , 0. , 0.5, 1. , 0.5],
       [0. , 0. , 0. , 1. , 0.5]])
>>> np.flatnonzero(f[11]).tolist()  # white's d1 moved up, or d2 or e2 placed: d2-e2's road
[3, 8, 9]
>>> s = from_tps("2,2,2,x2/x5/x5/x5/1,1,111,x2 1 6")  # two of c1's three spread: 2c1>11
>>> f = feature_planes(planes(s, 1)[None])[0]  # black's side: white's is theirs
>>> int(f[1].sum()), np.flatnonzero(f[9]).tolist()  # no placement finishes it
(0, [2])
"""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit
from mancala.games.tak.actions import num_actions
from mancala.games.tak.fast import (
    CAP,
    EMPTY,
    FLAT,
    HEIGHTS,
    KOMI,
    PLY,
    RESERVES,
    SIZE,
    WALL,
    action_square,
    count_bits,
    flood,
    has_road,
    held,
    legal_moves,
    lines_spanned,
    play,
    roads_in_one,
    roads_of,
    tops,
    unplay,
)
from mancala.games.tak.pieces import PIECES

FEATURES = 12  # planes a position gets


def feature_planes(planes: np.ndarray) -> np.ndarray:
    """The feature planes (N, FEATURES, S, S) of planes (N, C, S, S) (see the module text)."""
    size = planes.shape[-1]
    out = np.zeros((len(planes), FEATURES, size, size), np.float32)
    stones, caps = PIECES[size]
    features_into(
        np.ascontiguousarray(planes, dtype=np.float32), stones, caps, num_actions(size), out
    )
    return out


@njit(cache=True, nogil=True)
def features_into(planes, stones, caps, actions, out):
    """`feature_planes` of `planes` (N, C, S, S) into `out` (N, FEATURES, S, S, zeroed);
    `stones` and `caps` are a player's set, `actions` the board's action ids."""
    _fill(planes, out)
    _fill_road_moves(planes, stones, caps, actions, out)


@njit(cache=True, nogil=True)
def _fill(planes, out):
    n_side = planes.shape[2]
    kinds = 2 * n_side  # the planes of the top's kind: my wall, my capstone, theirs
    one, zero = np.uint64(1), np.uint64(0)
    for i in range(planes.shape[0]):
        mine, theirs, walls, my_caps, their_caps = zero, zero, zero, zero, zero
        for square in range(n_side * n_side):
            row, column = square // n_side, square % n_side
            bit = one << np.uint64(square)
            if planes[i, 0, row, column] > 0:
                mine |= bit
            elif planes[i, 1, row, column] > 0:
                theirs |= bit
            if planes[i, kinds, row, column] > 0 or planes[i, kinds + 2, row, column] > 0:
                walls |= bit
            elif planes[i, kinds + 1, row, column] > 0:
                my_caps |= bit
            elif planes[i, kinds + 3, row, column] > 0:
                their_caps |= bit
        flats = (mine & ~(walls | my_caps), theirs & ~(walls | their_caps))
        on_top = (flats, (my_caps, their_caps), walls)  # `fast.tops`, mine first
        for who in range(2):
            placed, moved = roads_in_one(on_top, who, n_side)
            _unpack(placed, out[i, who])
            _unpack(moved, out[i, 2 + who])
        held_bits = held(flats, on_top[1], walls, n_side)
        _unpack(held_bits[0], out[i, 4])
        _unpack(held_bits[1], out[i, 5])
        roads = roads_of(on_top)
        for who in range(2):
            rest = roads[who]
            while rest:
                group = flood(rest & (~rest + one), roads[who], n_side)  # the lowest's group
                rest &= ~group
                ranks, files = lines_spanned(group, n_side)
                _unpack(group, out[i, 6 + who], max(ranks, files) / n_side)


@njit(cache=True, nogil=True)
def _fill_road_moves(planes, stones, caps, actions, out):
    """Planes 8 to 11 of `out`: where each player's moves that finish a road start, and
    where those that make squares that would (a road in one) start."""
    n_side = planes.shape[2]
    squares = n_side * n_side
    meta = np.zeros(HEIGHTS + 2 * squares, np.int64)
    colours = np.zeros((squares, 2 * (stones + caps)), np.int8)
    moves = np.empty(actions, np.int64)
    for i in range(planes.shape[0]):
        _rebuild(planes[i], stones, caps, meta, colours)
        for who in range(2):  # mine is white: white moves at even plies (past the first two)
            meta[PLY] = 2 + who
            placed, moved = roads_in_one(tops(meta, colours), who, n_side)
            finishing = placed | moved
            for k in range(legal_moves(meta, colours, moves)):
                before = play(meta, colours, moves[k])
                start = action_square(moves[k], n_side)
                row, column = start // n_side, start % n_side
                if has_road(meta, colours, who):
                    out[i, 8 + who, row, column] = 1.0
                else:
                    placed, moved = roads_in_one(tops(meta, colours), who, n_side)
                    new = count_bits((placed | moved) & ~finishing)
                    threat = 1.0 if new > 1 else 0.5 if new else 0.0
                    out[i, 10 + who, row, column] = max(out[i, 10 + who, row, column], threat)
                unplay(meta, colours, moves[k], before)


@njit(cache=True, nogil=True)
def _rebuild(plane, stones, caps, meta, colours):
    """`fast`'s arrays (`meta`, `colours`, in place) of the position of one row of planes,
    its seat as white: the stacks as deep as the planes show, the reserves and komi 0."""
    n_side = plane.shape[1]
    squares = n_side * n_side
    kinds = 2 * n_side
    pieces = 2 * (stones + caps)
    meta[SIZE], meta[KOMI] = n_side, 0
    for k, whole in enumerate((stones, caps, stones, caps)):
        meta[RESERVES + k] = round(plane[kinds + 5 + k, 0, 0] * whole)
    for square in range(squares):
        row, column = square // n_side, square % n_side
        height = round(plane[kinds + 4, row, column] * pieces)
        meta[HEIGHTS + square] = height
        if height == 0:
            meta[HEIGHTS + squares + square] = EMPTY
        elif plane[kinds, row, column] > 0 or plane[kinds + 2, row, column] > 0:
            meta[HEIGHTS + squares + square] = WALL
        elif plane[kinds + 1, row, column] > 0 or plane[kinds + 3, row, column] > 0:
            meta[HEIGHTS + squares + square] = CAP
        else:
            meta[HEIGHTS + squares + square] = FLAT
        for depth in range(height):
            shown = min(depth, n_side - 1)
            colours[square, height - 1 - depth] = 0 if plane[2 * shown, row, column] > 0 else 1


@njit(cache=True, nogil=True)
def _unpack(bits, plane, value=1.0):
    """Set the squares of `bits` in `plane` (S, S) to `value`."""
    n_side = plane.shape[0]
    for square in range(n_side * n_side):
        if bits & (np.uint64(1) << np.uint64(square)):
            plane[square // n_side, square % n_side] = value
