"""Fit the policy of az's Tak guide to the alpha-beta's values of every move, or to az's
own searches (`mancala.learn.tak_fit`).

    mancala fit guide mancala/data/tak/tak-s5-minimax-games.jsonl.xz --positions 6000
    mancala fit guide --size 6 --factor 2            # the evaluation times 2, unfitted
    mancala fit guide --selfplay 1000                # az's searches teach the shipped guide
    mancala promote runs/fit guide --variant tak     # through the gate

Positions are drawn from the recorded games and every legal move of each is searched
exactly at --depth plies with the board's evaluation; the policy weights are fitted by
cross-entropy to the softmax of those values at --temperature (flats), from the board's
evaluation weights times the factor that fits best (which the held-out positions judge
the fit against). With --factor F nothing is labelled or fitted: the policy is the
board's evaluation times F (which docs/tak.md compares with the fitted ones).

With --selfplay GAMES (expert iteration), az with the shipped guide of the board (or the
one of --guide PATH) plays GAMES games against itself from random 2-ply openings, each
move a Gumbel search of --simulations, on --workers (here, or Ray's at --address); the
policy is fitted from the guide's own to the searches' improved policies, and the
value's scale is the guide's.

The guide (the policy weights and the value's --scale) is written atomically to
runs/fit/tak/az-guide-SIZE.json (or DIR/tak/ with --models DIR), with the command that
made it; the labels (or the self-play games, each as it ends) are saved beside it as they
are made, so a labelling stopped goes on where it was when the command is run again.
`mancala promote DIR guide --variant tak` then puts the guide in place of the shipped one
through the gate.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import fields
from pathlib import Path

from mancala.commands.options import add_workers_arguments
from mancala.core.cli import command_parser, float_in, int_in
from mancala.core.paths import FIT_DIR
from mancala.core.stopping import run_command
from mancala.games.tak.guide import SCALE, guide_file
from mancala.games.tak.pieces import PIECES

SIMULATIONS = 200  # a self-play move's Gumbel search


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala fit guide", __doc__)
    parser.add_argument("paths", nargs="*", type=Path, help="JSONL files of Tak games")
    parser.add_argument("--size", type=int, choices=sorted(PIECES), default=5, help="board (5)")
    parser.add_argument("--positions", type=int_in(10, 1_000_000), default=6000)
    parser.add_argument("--depth", type=int_in(1, 6), default=3, help="plies of the labels (3)")
    parser.add_argument("--temperature", type=float_in(0.01, 100.0), default=0.1, help="flats")
    parser.add_argument("--scale", type=float_in(0.1, 1000.0), help=f"flats ({SCALE:g})")
    parser.add_argument("--ridge", type=float_in(0.0, 1e6), default=1e-4)
    parser.add_argument(
        "--factor", type=float_in(0.01, 100.0), help="the policy: the evaluation times this"
    )
    parser.add_argument(
        "--selfplay", type=int_in(1, 1_000_000), metavar="GAMES", help="games of az's searches"
    )
    parser.add_argument(
        "--simulations", type=int_in(2, 100_000), default=SIMULATIONS, help="a self-play move's"
    )
    parser.add_argument("--guide", type=Path, help="the guide that plays (the shipped one)")
    add_workers_arguments(parser)
    parser.add_argument("--models", type=Path, default=FIT_DIR, help="the output folder")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    command = shlex.join(["mancala", "fit", "guide", *(argv or sys.argv[1:])])
    if args.factor is not None and args.selfplay is not None:
        parser.error("--factor and --selfplay are two ways to make the policy: choose one")
    if (args.factor is not None or args.selfplay is not None) and args.paths:
        parser.error("--factor and --selfplay take no games: the games are not labelled")
    if args.factor is None and args.selfplay is None:
        if not args.paths:
            parser.error("the games to label are needed (or --factor, or --selfplay)")
        parser.require_files(args.paths)
    if args.selfplay is not None and args.guide is not None:
        parser.require_files([args.guide])
    folder = guide_file(args.size, args.models).parent
    kept = f"the labels made are kept in {folder}; run it again to go on"
    return run_command("mancala fit guide", lambda: fit(args, command), kept)


def fit(args, command: str) -> int:
    from mancala.learn.tak_fit import GuideFit, fit_guide

    named = {f.name: getattr(args, f.name) for f in fields(GuideFit) if f.name != "command"}
    path = fit_guide(GuideFit(**{**named, "paths": tuple(args.paths)}, command=command))
    print(f"wrote {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
