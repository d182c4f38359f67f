"""Forever (until Ctrl+C or --batches K): random matches -> JSONL -> refit -> gated promotion.

    mancala train                       # the zoo, luck, greedy, minimax
    mancala train --resume              # continue the last run
    mancala train nn1h128 greedy minimax:4 --explore 0.2 --run small
    mancala train nnx2h256 greedy --record-only --teacher 10
    mancala train --variant sungka --record-only --teacher az:400
    mancala train --variant tak         # the zoo's Tak networks (5x5)
    mancala train --variant tak --size 6  # ... of 6x6, in mancala/models/tak-size6/

A run lives in runs/<name>/ (see mancala/learn/runs.py): its games, its candidate
weights, its learning curve, its gate decisions and its log. Each batch plays random
pairings of the players (each move a random legal one with probability --explore),
annotates every game with the teacher's value of each legal move (alpha-beta to
--teacher plies, or with --teacher az:N az's search of N simulations guided by the az-net
of the weights folder, once the expert check has shown it the stronger labeller:
mancala/learn/expert.py; naming az-net among the players closes the loop: each az-net the
gate promotes there guides the labels of the batches after it)
and appends it to the run's games the moment it ends. Then every
network is refit on the examples recorded so far (a sample of at most --sample of them:
the labels that ship for the board (on Kalah its exact positions alone), the run's games
and those beside --out) and
saved as the run's candidate. Every
--gate-every batches each candidate meets the promotion gate (mancala/learn/gate.py):
only a candidate shown stronger than the weights in mancala/models/ replaces them,
and the replaced file is kept in mancala/models/replaced/. So a run can only make the
shipped zoo stronger.
With --record-only the networks play with their current weights and nothing is refit:
the games of a chosen network against chosen opponents, annotated by a deeper teacher,
for `mancala fit` to learn from.
--workers N plays and annotates the games N ways at once on Ray (--address joins a
cluster; docs/ray.md); the records do not depend on N, each game being seeded alone.
On Ray the workers play the next batch while this process refits, measures and gates
(with the weights before those refits; --wait-for-refits waits for them instead), a batch
as long as the last refits and gates took (at least --games games, at most 16 times as
many), and each batch's line says the share of the run in which the workers were busy.
Ctrl+C (exit 130) or SIGTERM (exit 143) loses no recorded game and leaves no half-written
weights file; --resume continues from there.
"""

from __future__ import annotations

import sys

from mancala.commands.options import main_job_arguments, main_job_settings, run_main_job_command
from mancala.core.cli import command_parser, fail
from mancala.games import game
from mancala.nn_lib.base import ZOO_GAMES
from mancala.nn_lib.policy_value import NAME as AZ_NET
from mancala.nn_lib.zoo import networks_for


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala train", __doc__)
    parser.add_argument(
        "players",
        nargs="*",
        help="players (default: the zoo's networks of the game and its practice players: "
        + "; ".join(f"{name}: {', '.join(game(name).practice)}" for name in ZOO_GAMES)
        + f"); {AZ_NET} (sowing games, default board) is refit and gated beside them but "
        "plays no games",
    )
    main_job_arguments(parser)
    args = parser.parse_args(argv)
    players = args.players or [*networks_for(args.variant), *game(args.variant).practice]
    try:
        settings, run = main_job_settings(args, players)
    except ValueError as error:
        return fail("mancala train", str(error))
    return run_main_job_command("mancala train", settings, run)


if __name__ == "__main__":
    sys.exit(main())
