"""Sizing a search's transposition table to the memory it may use."""

from __future__ import annotations


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
