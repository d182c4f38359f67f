"""Tak's pieces: what a square holds and how many pieces each player has."""

from __future__ import annotations

from typing import NamedTuple

# stones (flats and walls) and capstones per player, by board size
PIECES = {3: (10, 0), 4: (15, 0), 5: (21, 1), 6: (30, 1), 7: (40, 2), 8: (50, 2)}
COLOURS = ("white", "black")


class Piece(NamedTuple):
    """One piece: its owner (0 white, 1 black) and kind (F flat, S wall, C capstone)."""

    player: int
    kind: str


Stack = tuple[Piece, ...]  # bottom to top
