"""Speed of the rules, the numba engine, OpenSpiel and the search players, on this machine.

    mancala bench                 # the table (Kalah(6,4)), about a minute
    mancala bench --games 20000   # more random games for the engines' rows
    mancala bench --verify        # a million moves through engine and rules
    mancala bench --teacher       # positions annotated a second, before and after
    mancala bench --tak 5         # Tak: perft by both engines, then the alpha-beta
    mancala bench --solve         # the Kalah solver on fixed positions, no book

What is measured: mancala/arena/bench.py, bench_positions.py and mancala/learn/bench.py.
"""

from __future__ import annotations

import argparse
import sys

from mancala.arena.bench import bench, verify
from mancala.arena.bench_positions import solve_rates, tak_perft_rates, tak_search_rates
from mancala.core.cli import command_parser, int_in
from mancala.core.report import show
from mancala.core.stopping import run_command
from mancala.learn.bench import teacher_rates


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala bench", __doc__)
    parser.add_argument("--games", type=int_in(1), default=10_000, help="random games per engine")
    parser.add_argument("--timed-games", type=int_in(1), default=1, help="games timed per player")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--verify",
        nargs="?",
        const=1_000_000,
        type=int_in(1),
        metavar="MOVES",
        help="compare engine and rules over MOVES random moves (default a million)",
    )
    parser.add_argument(
        "--teacher",
        nargs="?",
        const=160,
        type=int_in(1, 160),
        metavar="GAMES",
        help="annotation rates of the learning loop's teacher over GAMES recorded games (160)",
    )
    parser.add_argument(
        "--tak",
        type=int_in(3, 8),
        metavar="SIZE",
        help="Tak on a SIZE board: perft by both engines, then the numba alpha-beta",
    )
    parser.add_argument(
        "--solve",
        nargs="?",
        const="mid",
        choices=("mid", "all"),
        help="the Kalah solver on fixed positions (all: also Kalah(6,4) from the opening)",
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    return run_command("mancala bench", lambda: _run(args), "nothing is written")


def _run(args: argparse.Namespace) -> int:
    if args.verify is not None:
        mismatches, said = verify(args.verify, args.seed)
        print(said)
        return 1 if mismatches else 0
    if args.solve is not None:
        tables = [solve_rates(args.solve == "all")]
    elif args.tak is not None:
        tables = [tak_perft_rates(args.tak), tak_search_rates(args.tak)]
    elif args.teacher is not None:
        tables = [teacher_rates(args.teacher)]
    else:
        tables = [bench(args.games, args.timed_games, args.seed)]
    show(tables, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
