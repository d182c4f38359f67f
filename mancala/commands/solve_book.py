"""Build the solver's opening book (`mancala.games.sowing.solver.book`).

    mancala solve book                    # Kalah(6,4), standard capture
    mancala solve book --empty-capture
    mancala solve book --from mancala/data/kalah/kalah-h6-s4-labels-plies.jsonl.xz

The book holds the exact values and best moves of every position where a player can be
to move in the game's first two turns, so that the `solver` player need not prove them
during a game (the opening of Kalah(6,4) is a 34 M-node proof, about 20 s).
--from adds instead every exact position of labels files (`mancala solve labels --plies`
proves each position of the first plies: docs/perfect_play.md) to the book, whose players
(`solver`, `az`) then play them from it.
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
    parser.add_argument(
        "--from", dest="labels", nargs="+", type=Path, metavar="FILE", help="add these labels"
    )
    args = parser.parse_args(argv)
    try:
        start = new_game(args.variant, **game_options(args))
        check_solvable(start)
    except ValueError as error:
        return fail("mancala solve book", str(error))
    path = args.out or book_path(start)
    if args.labels:
        missing = [str(p) for p in args.labels if not p.is_file()]
        if missing:
            return fail("mancala solve book", f"no such file: {', '.join(missing)}")
        return _add_labels(start, path, args.labels)
    kept = f"every position solved so far is in {path}"
    return run_command("mancala solve book", lambda: _build(start, path, args.turns), kept)


def _build(start: GameState, path: Path, turns: int) -> int:
    began = time.perf_counter()
    positions = build_book(start, path, turns=turns)
    print(f"{len(positions)} positions in {time.perf_counter() - began:.0f} s: {path}")
    return 0


def _add_labels(start: GameState, path: Path, files: list[Path]) -> int:
    from mancala.learn.labels import labelled, positions

    book = load_book(start, path)
    before = len(book)
    for state, values, exact, _ in positions(labelled(files)):
        if exact and state.options == start.options:
            best = max(v for v in values if v is not None)
            moves = [m for m, v in enumerate(values) if v == best]
            book[book_key(state)] = {"value": best - store_lead(state), "best": moves}
    save_book(start, book, path)
    print(f"{len(book) - before} positions added, {len(book)} in all: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
