"""Two networks practise against each other: the main job with those two players alone.

    mancala adversary nn1h128 cnns1h128                 # until Ctrl+C
    mancala adversary nn2h80 nnx3h80 --batches 5 --games 100

A preset of `mancala train A B`: each batch plays --games games between the two networks
from random openings, seats drawn at random (each move a random legal one with
probability --explore); every game is annotated with the teacher's move values and
appended to the run's games as it ends; both networks are refit and go through the gate,
which replaces the weights in mancala/models/ only with stronger ones (the old file
kept). Every option of `mancala train` applies.
"""

from __future__ import annotations

import sys

from mancala.commands.options import main_job_arguments, main_job_settings, run_main_job_command
from mancala.core.cli import command_parser, fail
from mancala.nn_lib.zoo import ZOO


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala adversary", __doc__)
    parser.add_argument("a", help="a network of the zoo")
    parser.add_argument("b", help="another network of the zoo")
    main_job_arguments(parser)
    args = parser.parse_args(argv)
    try:
        for name in (args.a, args.b):
            if name not in ZOO:
                raise ValueError(f"{name!r} is not a network of the zoo ({', '.join(ZOO)})")
        if args.a == args.b:
            raise ValueError("name two different networks")
        settings, run = main_job_settings(args, [args.a, args.b])
    except ValueError as error:
        return fail("mancala adversary", str(error))
    return run_main_job_command("mancala adversary", settings, run)


if __name__ == "__main__":
    sys.exit(main())
