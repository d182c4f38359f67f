"""A search's transposition table: its size within the memory it may use, and an empty one;
a tree search's node pool within its memory."""

from __future__ import annotations

import numpy as np


def table_bits(memory: int, entry_bytes: int, most: int) -> int:
    """log2 of the largest table of `entry_bytes`-byte entries (at most 2**most entries,
    at least 16) that fits in `memory` bytes.

    >>> table_bits(1 << 30, 40, 20), table_bits(16 << 20, 40, 20), table_bits(0, 40, 20)
    (20, 18, 4)
    """
    bits = most
    while bits > 4 and entry_bytes << bits > memory:
        bits -= 1
    return bits


def empty_table(bits: int, value_dtype: type, bound_dtype: type) -> tuple[np.ndarray, ...]:
    """An empty transposition table of 2**bits entries, five arrays: key (uint64), value,
    depth (int64, -1: empty), bound and move (int64).

    >>> [a.dtype.name for a in empty_table(4, np.float64, np.int8)]
    ['uint64', 'float64', 'int64', 'int8', 'int64']
    """
    size = 1 << bits
    return (
        np.zeros(size, np.uint64),
        np.zeros(size, value_dtype),
        np.full(size, -1, np.int64),
        np.zeros(size, bound_dtype),
        np.zeros(size, np.int64),
    )


def pool_nodes(simulations: int, memory: int, node_bytes: int) -> int:
    """The node pool of a tree search: one node a simulation (and the root), at least
    two, within `memory` bytes of `node_bytes` a node.

    >>> pool_nodes(10**9, 16 << 20, 192), pool_nodes(100, 16 << 20, 192)
    (87381, 102)
    """
    return max(2, min(simulations + 2, memory // node_bytes))
