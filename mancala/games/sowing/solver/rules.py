"""The rules of Kalah on relative boards: the mover's houses in sowing order, then the
opponent's, stores left out (a value counts the seeds gained from now on)."""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit
from mancala.game_state import GameState
from mancala.games.sowing.view import houses_of, mover_view

INF = 1000  # a bound beyond the values searched


@njit(cache=True)
def sides(b, h):
    """Seeds in the mover's houses and in the opponent's."""
    own = 0
    other = 0
    for i in range(h):
        own += b[i]
        other += b[h + i]
    return own, other


@njit(cache=True)
def apply_move(b, m, h, ec):
    """Sow house m of the mover on relative board b (in place): (gain, code).

    gain: seeds into the mover's store minus, at the end, the opponent's sweep;
    code 0: the opponent moves next, 1: the mover moves again, 2: the game is over.
    """
    s = b[m]
    b[m] = 0
    cycle = 2 * h + 1  # the mover's houses, store and the opponent's houses
    laps = s // cycle
    gain = laps
    if laps:
        for i in range(2 * h):
            b[i] += laps
    p = m
    for _ in range(s % cycle):
        p += 1
        if p == cycle:
            p = 0
        if p < h:
            b[p] += 1
        elif p == h:
            gain += 1
        else:
            b[p - 1] += 1
    if p < h and b[p] == 1:
        opposite = 2 * h - 1 - p
        if b[opposite] > 0 or ec:
            gain += 1 + b[opposite]
            b[p] = 0
            b[opposite] = 0
    own, other = sides(b, h)
    if own == 0 or other == 0:
        for i in range(2 * h):
            b[i] = 0
        return gain + own - other, 2
    if p == h:
        return gain, 1
    return gain, 0


@njit(cache=True)
def swap_into(src, dst, h):
    """dst = src seen from the opponent's side (the two halves exchanged)."""
    for i in range(h):
        dst[i] = src[h + i]
        dst[h + i] = src[i]


def relative_board(state: GameState) -> np.ndarray:
    """The houses of `state` from the mover's side: own houses, then the opponent's."""
    return houses_of(mover_view(state))


def store_lead(state: GameState) -> int:
    """The mover's store minus the opponent's: what a final value adds to a relative one."""
    me = state.player
    return state.board[state.store(me)] - state.board[state.store(1 - me)]
