"""Board numbering: the combinatorial rank of a relative board (the mover's houses, then
the opponent's), the key of both the endgame database and the transposition table."""

from __future__ import annotations

import math

import numpy as np

from mancala.core.jit import njit


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


def unrank(level: int, index: int, pits: int) -> np.ndarray:
    """The board of `level` seeds in `pits` pits that is the `index`-th of its level in
    rank order (the order of `next_composition`).

    >>> b = unrank(5, 0, 4)
    >>> [int(x) for x in b], bool(next_composition(b)), [int(x) for x in b]
    ([0, 0, 0, 5], True, [0, 0, 1, 4])
    >>> all(rank(unrank(5, i, 4), binomial_table(5, 4), 0) == entries(4, 2) + i
    ...     for i in range(math.comb(8, 3)))
    True
    """
    b = np.zeros(pits, np.int64)
    left = level
    for i in range(pits - 1):
        rest = pits - i - 1  # the pits after this one
        a = 0
        while a < left and index >= math.comb(left - a + rest - 1, rest - 1):
            index -= math.comb(left - a + rest - 1, rest - 1)
            a += 1
        b[i] = a
        left -= a
    b[pits - 1] = left
    return b
