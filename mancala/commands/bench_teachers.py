"""How good and how fast the Kalah training teachers are, on the whole-game set.

    mancala bench teachers                         # today's teacher and deeper ones
    mancala bench teachers 10:20000 14:20000 --positions 100 --json
    mancala bench teachers 14:20000 --networks nnxa2h512   # a student beside it

A teacher is DEPTH:NODES (`mancala.learn.teacher.Teacher`; the main job's is 10:20000);
what is measured, and how: mancala/learn/bench.py.
"""

from __future__ import annotations

import sys

from mancala.core.cli import command_parser, int_in
from mancala.core.report import show
from mancala.core.stopping import run_command
from mancala.learn.bench import teachers_table

TEACHERS = ("10:20000", "12:20000", "14:20000", "12:2000000")


def teacher_spec(text: str) -> tuple[int, int]:
    """'DEPTH:NODES' -> (depth 1..20, nodes >= 0); ValueError otherwise."""
    depth, _, nodes = text.partition(":")
    try:
        pair = int(depth), int(nodes or 0)
    except ValueError:
        raise ValueError(f"a teacher is DEPTH:NODES such as 10:20000, not {text!r}") from None
    if not 1 <= pair[0] <= 20 or pair[1] < 0:
        raise ValueError(f"a teacher's depth is 1..20 and its nodes >= 0, not {text!r}")
    return pair


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala bench teachers", __doc__)
    parser.add_argument("teachers", nargs="*", help="DEPTH:NODES (" + " ".join(TEACHERS) + ")")
    parser.add_argument(
        "--positions", type=int_in(3), help="every k-th position, about this many (all)"
    )
    parser.add_argument(
        "--networks", nargs="+", default=[], metavar="NAME", help="zoo networks scored beside"
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    try:
        teachers = [teacher_spec(text) for text in args.teachers or TEACHERS]
    except ValueError as error:
        parser.error(str(error))

    def body() -> int:
        show([teachers_table(teachers, args.positions, args.networks)], args.json)
        return 0

    return run_command("mancala bench teachers", body, "nothing was kept")


if __name__ == "__main__":
    sys.exit(main())
