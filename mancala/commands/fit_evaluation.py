"""Fit Tak's alpha-beta evaluation to its own deeper searches (`mancala.learn.tak_fit`).

    mancala tournament 25 minimax:t=0.02 minimax:t=0.04 --variant tak --plies 4 \
        --seed 1 --record runs/tak-games.jsonl          # games to draw positions from
    mancala fit evaluation runs/tak-games.jsonl --rounds 2
    mancala promote runs/fit evaluation --variant tak     # through the gate

Positions are drawn from the recorded games, labelled by the alpha-beta at --depth plies
with the current weights and the weights refitted, --rounds times. The start is the
shipped fitted weights of the board (the hand-set ones where none ship, or with --hand).
The weights are written atomically to runs/fit/tak/evaluation-SIZE.json (or DIR/tak/ with
--models DIR) after each round, with the command that made them, and each round's kept in
evaluation-SIZE-rounds/ beside them with the settings; a fit stopped between rounds goes
on from the last one with --resume (the same settings). `mancala promote DIR
evaluation --variant tak` then puts them in place of the shipped ones through the gate.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import fields
from pathlib import Path

from mancala.core.cli import command_parser, float_in, int_in
from mancala.core.paths import FIT_DIR
from mancala.core.stopping import run_command
from mancala.games.tak.evaluate import weights_file
from mancala.games.tak.pieces import PIECES


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala fit evaluation", __doc__)
    parser.add_argument("paths", nargs="+", type=Path, help="JSONL files of Tak games")
    parser.add_argument("--size", type=int, choices=sorted(PIECES), default=5, help="board (5)")
    parser.add_argument("--positions", type=int_in(10, 10_000_000), default=20_000)
    parser.add_argument("--depth", type=int_in(1, 8), default=4, help="plies of the labels (4)")
    parser.add_argument("--rounds", type=int_in(1, 100), default=1, help="label and refit (1)")
    parser.add_argument("--ridge", type=float_in(0.0, 1e6), default=0.01)
    parser.add_argument("--hand", action="store_true", help="start from the hand-set weights")
    parser.add_argument("--models", type=Path, default=FIT_DIR, help="the output folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true", help="go on from the rounds saved")
    args = parser.parse_args(argv)
    parser.require_files(args.paths)
    command = shlex.join(["mancala", "fit", "evaluation", *(argv or sys.argv[1:])])
    path = weights_file(args.size, args.models)
    kept = f"the weights of each finished round are in {path}; --resume goes on"
    return run_command("mancala fit evaluation", lambda: fit(args, command), kept)


def fit(args, command: str) -> int:
    from mancala.learn.tak_fit import EvaluationFit, fit_evaluation

    named = {f.name: getattr(args, f.name) for f in fields(EvaluationFit) if f.name != "command"}
    settings = EvaluationFit(**{**named, "paths": tuple(args.paths)}, command=command)
    if fit_evaluation(settings) is None:
        print(f"no {args.size}x{args.size} Tak position in {len(args.paths)} file(s)")
        return 1
    return 0
