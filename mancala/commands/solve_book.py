"""Build the solver's opening book (`mancala.games.sowing.solver.book`).

    mancala solve book                    # Kalah(6,4), standard capture
    mancala solve book --empty-capture

The book holds the exact values and best moves of every position where a player can be
to move in the game's first two turns, so that the `solver` player need not prove them
during a game (the opening of Kalah(6,4) is a 34 M-node proof, about 20 s).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tqdm import tqdm

from mancala.ai.minimax import Minimax
from mancala.commands.options import add_game_options, game_options
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.stopping import run_command
from mancala.game_state import GameState
from mancala.games import games_with, new_game
from mancala.games.sowing.solver import TT_BITS, Solver, check_solvable, store_lead
from mancala.games.sowing.solver.book import (
    GUESS_DEPTH,
    MAX_TURNS,
    TURNS,
    Entry,
    book_key,
    book_path,
    book_positions,
    first_guess,
    load_book,
    save_book,
)


def build_book(
    start: GameState,
    path: Path | None = None,
    solver: Solver | None = None,
    turns: int = TURNS,
    progress: bool = True,
) -> dict[str, Entry]:
    """Solve the book positions of `start`'s rules (a progress bar), adding each to the
    book at `path` as it is solved (an interrupted build keeps what it has); the book."""
    path = path or book_path(start)
    book = load_book(start, path)
    solver = solver or Solver(
        start.houses, start.empty_capture, tt_bits=TT_BITS + 1, progress=False
    )
    guesser = Minimax(seed=0, depth=GUESS_DEPTH)
    bar = tqdm(unit="position", disable=not progress, file=sys.stderr)

    def solve(state: GameState) -> Entry:
        key = book_key(state)
        if key not in book:
            result = solver.solve(state, all_moves=False, guess=first_guess(state, guesser))
            value = result["value"] - store_lead(state)
            book[key] = {"value": value, "best": sorted(result["best"])}
            save_book(start, book, path)
        bar.update()
        return book[key]

    try:
        return book_positions(start, solve, turns)
    finally:
        bar.close()


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala solve book", __doc__)
    add_game_options(parser, games_with("solver"))
    parser.add_argument(
        "--turns",
        type=int_in(1, MAX_TURNS),
        default=TURNS,
        help=f"the game's first turns ({TURNS}; 1..{MAX_TURNS})",
    )
    parser.add_argument("--out", type=Path, help="the book's path (default mancala/models/)")
    args = parser.parse_args(argv)
    try:
        start = new_game(args.variant, **game_options(args))
        check_solvable(start)
    except ValueError as error:
        return fail("mancala solve book", str(error))
    path = args.out or book_path(start)
    kept = f"every position solved so far is in {path}"
    return run_command("mancala solve book", lambda: _build(start, path, args.turns), kept)


def _build(start: GameState, path: Path, turns: int) -> int:
    began = time.perf_counter()
    positions = build_book(start, path, turns=turns)
    print(f"{len(positions)} positions in {time.perf_counter() - began:.0f} s: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
