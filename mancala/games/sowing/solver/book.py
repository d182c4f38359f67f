"""The solver's opening book: exact values and best moves of the positions near the opening.

The proofs a `solver` player needs in its first turns are the expensive ones (the
opening of Kalah(6,4) is a 34 M-node proof, about 20 s); later positions take well under
a second. The book holds every position where the player can be to move in the game's
first two turns: as first player, the opening and the positions its value-optimal moves
lead to; as second player, those after every first turn of the opponent. The player looks
there before it searches. Entries are relative boards (the mover's houses, then the
opponent's) with their value (seeds the mover still gains, perfect play) and best moves.

The books of Kalah(6,4) ship in mancala/models/ (`mancala solve book` builds
them). A book is JSON with a header; one that does not parse or is for other rules is
ignored with a warning, never trusted.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from mancala.core.atomic import write_json
from mancala.core.paths import MODELS_DIR
from mancala.game_state import GameState
from mancala.games.sowing.solver.rules import relative_board

FORMAT = "mancala-kalah-book"
TURNS = 2  # the game's first turns whose positions are in the book
MAX_TURNS = 4  # each further turn multiplies the positions (and the proofs) many times
GUESS_ABOVE, GUESS_DEPTH = 32, 10  # minimax:10 guesses the value above 32 seeds (measured)
BOOK_DIR = MODELS_DIR  # the books of Kalah(6,4) ship with the weights

Entry = dict  # {"value": int, "best": [moves]}


class Guesser(Protocol):
    """A search that values a position (`mancala.ai.minimax.Minimax` is one)."""

    def evaluate(self, state: GameState) -> dict[str, Any]: ...


def book_key(state: GameState) -> str:
    """The position's relative board as text: '4,4,0,5,...'."""
    return ",".join(str(int(c)) for c in relative_board(state))


def book_path(start: GameState, folder: Path = BOOK_DIR) -> Path:
    """Where the book of `start`'s board size, seeds and capture rule lives."""
    rule = "ec" if start.empty_capture else "std"
    return folder / f"solver-book-h{start.houses}-s{start.seeds}-{rule}.json"


def _header(start: GameState) -> dict:
    return {"format": FORMAT, "houses": start.houses, "empty_capture": start.empty_capture}


def load_book(start: GameState, path: Path | None = None) -> dict[str, Entry]:
    """The book of `start`'s rules, or {} when there is none (a bad file: also a warning)."""
    path = path or book_path(start)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
        if {k: data.get(k) for k in _header(start)} != _header(start):
            raise ValueError("it is for other rules")
        positions = data["positions"]
        for key, entry in positions.items():
            if not (isinstance(entry["value"], int) and entry["best"]):
                raise ValueError(f"entry {key} is malformed")
        return positions
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        warnings.warn(f"ignoring the solver book {path}: {error}", stacklevel=2)
        return {}


def save_book(start: GameState, positions: dict[str, Entry], path: Path | None = None) -> Path:
    """Write the book atomically; its path."""
    path = path or book_path(start)
    write_json(path, {**_header(start), "positions": positions}, indent=None)
    return path


def book_positions(
    start: GameState, solve: Callable[[GameState], Entry], turns: int = TURNS
) -> dict[str, Entry]:
    """Every position where a value-optimal player moves in the game's first `turns`
    turns (a turn ends when the other player is to move), from either seat, with
    `solve`'s entry."""
    book: dict[str, Entry] = {}

    def walk(state: GameState, seat: int, turn: int) -> None:
        if state.is_over() or turn >= turns:
            return
        if state.player == seat:
            key = book_key(state)
            if key not in book:
                book[key] = solve(state)
            moves = book[key]["best"]
        else:
            moves = state.legal_moves()
        for move in moves:
            child = state.play(move)
            walk(child, seat, turn + (child.player != state.player))

    for seat in (0, 1):
        walk(start, seat, 0)
    return book


def first_guess(state: GameState, guesser: Guesser) -> float:
    """Where MTD(f) should start: `guesser`'s value where the proof is long, else 0."""
    if sum(state.side(0)) + sum(state.side(1)) <= GUESS_ABOVE:
        return 0.0
    return guesser.evaluate(state)["value"]
