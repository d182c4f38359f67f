"""The main job's throughput: games and labelled positions an hour, and the share of the
run in which the workers play, with each batch waiting for the refits and with the next
batch played during them.

    mancala bench loop                         # the default job on 2 workers, 3 batches each way
    mancala bench loop --batches 2 -- nn1h128 greedy minimax:2 --games 96

Anything after `--` goes to both runs of `mancala train` as it is (players, --games,
--variant ...); what is measured, and how: mancala/learn/bench.py.
"""

from __future__ import annotations

import sys

from mancala.arena.bench import say
from mancala.core.cli import command_parser, int_in
from mancala.core.report import show
from mancala.core.stopping import run_command
from mancala.learn.bench import loop_table


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    passed = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = command_parser("mancala bench loop", __doc__)
    parser.add_argument("--workers", type=int_in(1), default=2, help="Ray workers (2)")
    parser.add_argument("--batches", type=int_in(1), default=3, help="batches a run (3)")
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(own)

    def body() -> int:
        progress = say if args.json else print
        show([loop_table(args.workers, args.batches, passed, progress)], args.json)
        return 0

    return run_command("mancala bench loop", body, "nothing was kept")
