"""The solver's transposition table: one int64 array of buckets of two entries (key, data)
side by side, 32 bytes, so a probe touches one cache line. data packs the lower and upper
bound (int16 each, offset by BIAS), the best move and log2 of the subtree's node count.
The first tier keeps the bigger subtree, the second the newest other one."""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit

TT_BITS = 23
BIAS = 1 << 15


def new_table(tt_bits: int) -> np.ndarray:
    """An empty table of 2**tt_bits (key, data) pairs."""
    return np.full(2 << tt_bits, -1, np.int64)


@njit(cache=True)
def _slot(key, mask):
    x = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64((x >> np.uint64(24)) & np.uint64(mask)) * 4


@njit(cache=True)
def _pack(lo, hi, move, work):
    return (lo + BIAS) | ((hi + BIAS) << 16) | ((move + 1) << 32) | (work << 40)


@njit(cache=True)
def probe(key, tt):
    """The data of `key` in the table, or -1."""
    i = _slot(key, (tt.shape[0] >> 2) - 1)
    if tt[i] == key:
        return tt[i + 1]
    if tt[i + 2] == key:
        return tt[i + 3]
    return -1


@njit(cache=True)
def lower(data):
    """The lower bound held in `data`."""
    return (data & 0xFFFF) - BIAS


@njit(cache=True)
def upper(data):
    """The upper bound held in `data`."""
    return ((data >> 16) & 0xFFFF) - BIAS


@njit(cache=True)
def best_move(data):
    """The best move held in `data` (-1: none)."""
    return ((data >> 32) & 0xFF) - 1


@njit(cache=True)
def store(key, lo, hi, move, work, tt):
    """Add bounds of `key`; a new key takes the first tier if its subtree was bigger than
    the one there (which moves to the second tier), else the second tier."""
    i = _slot(key, (tt.shape[0] >> 2) - 1)
    if tt[i + 2] == key:
        i += 2
    elif tt[i] != key:
        if work >= (tt[i + 1] >> 40):
            tt[i + 2] = tt[i]
            tt[i + 3] = tt[i + 1]
        else:
            i += 2
        tt[i] = key
        tt[i + 1] = _pack(lo, hi, move, work)
        return
    old = tt[i + 1]
    lo = max(lo, lower(old))
    hi = min(hi, upper(old))
    tt[i + 1] = _pack(lo, hi, move, max(work, old >> 40))
