"""Games played 1 way and N ways (mancala/arena/parallel.py): the speed-up and Ray's start-up.

    mancala bench workers                      # 1 worker against 2
    mancala bench workers --workers 4 --games 64 --teacher 8

What is measured, and how to read it: mancala/learn/bench.py.
"""

from __future__ import annotations

import sys

from mancala.arena.bench import say
from mancala.core.cli import command_parser, int_in
from mancala.core.report import show
from mancala.core.stopping import run_command
from mancala.learn.bench import workers_table


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala bench workers", __doc__)
    parser.add_argument("--workers", type=int_in(2), default=2, help="N, against 1 (2)")
    parser.add_argument("--games", type=int_in(1), default=96, help="games recorded (96)")
    parser.add_argument("--teacher", type=int_in(1, 20), default=8, help="teacher depth (8)")
    parser.add_argument(
        "--exact-nodes", type=int_in(0), default=0, help="teacher's solver nodes (0: none)"
    )
    parser.add_argument(
        "--tournament", type=int_in(1), default=200, help="tournament games a pair and seat (200)"
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    options = args.workers, args.games, args.teacher, args.exact_nodes, args.tournament

    def body() -> int:
        show([workers_table(*options, say=say if args.json else print)], args.json)
        return 0

    return run_command("mancala bench workers", body, "nothing was kept")


if __name__ == "__main__":
    sys.exit(main())
