"""Board numbering: the combinatorial rank of a relative board (the mover's houses, then
the opponent's), the key of both the endgame database and the transposition table."""

from __future__ import annotations

import math

import numpy as np
from numba import njit


def binomial_table(max_seeds: int, pits: int) -> np.ndarray:
    """binom[x, y] = C(x, y) for x < max_seeds + pits + 1, y <= pits (int64)."""
    rows = max_seeds + pits + 1
    table = np.zeros((rows, pits + 1), np.int64)
    for x in range(rows):
        for y in range(min(x, pits) + 1):
            table[x, y] = math.comb(x, y)
    return table


def entries(max_seeds: int, houses: int) -> int:
    """How many relative boards hold at most `max_seeds` seeds: C(max_seeds + 2h, 2h).

    >>> entries(20, 6)
    225792840
    """
    return math.comb(max_seeds + 2 * houses, 2 * houses)


@njit(cache=True)
def rank(b, binom, shift):
    """The index of the relative board b (read from pit `shift` on, cyclically): the
    boards with fewer seeds first, then lexicographic order of the counts."""
    k = b.shape[0]
    n = 0
    for i in range(k):
        n += b[i]
    idx = binom[n + k - 1, k]
    r = n
    j = shift
    for i in range(k - 1):  # no branch on the counts: an empty pit adds 0
        a = b[j]
        j += 1
        if j == k:
            j = 0
        kk = k - i
        idx += binom[r + kk - 1, kk - 1] - binom[r - a + kk - 1, kk - 1]
        r -= a
    return idx


@njit(cache=True)
def next_composition(b):
    """The next board of the same total in rank order; False after the last."""
    k = b.shape[0]
    j = k - 1
    while j > 0 and b[j] == 0:
        j -= 1
    if j == 0:
        return False
    s = b[j]
    b[j] = 0
    b[j - 1] += 1
    b[k - 1] = s - 1
    return True
