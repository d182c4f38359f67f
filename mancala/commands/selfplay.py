"""Train the AlphaZero-style network of a game by self-play, promoting only what wins.

    mancala selfplay --variant kalah --from runs/kalah60/games.jsonl --rounds 0
    mancala selfplay --variant kalah --rounds 20 --run az1
    mancala selfplay --resume --run az1
    mancala selfplay --variant tak --teacher-games 1000 --epochs 8 --rounds 0
    mancala selfplay --variant sungka --scratch --rounds 25 --run s1
    mancala selfplay --variant sungka --measure 100 --run s1
    mancala selfplay --seeds 5 --init mancala/models/kalah/az-net.keras --rounds 10 --run k65

A new run starts from teacher-annotated games (--from, recorded by `mancala train`:
the policy from the teacher's values of the moves, the value from the best one's final
margin m as tanh(m / --value-scale seeds)), from games of the Tak alpha-beta
(--teacher-games N), from untrained weights (--scratch), or, with none of these, from
the current best network (mancala/models/GAME/az-net.keras). A board other than the
game's default (`--seeds 5`, `--size 6`, ...) has networks of its own
(mancala/models/GAME-seeds5/, ...), and a run of it may start from a network of another
board with the same shapes (--init FILE: Kalah(6,4)'s for Kalah(6,5)). Each round `az` plays
--games games against itself with the best network (on --workers, as the main job plays
its games: here, or on Ray), every move chosen by Gumbel
AlphaZero's root (--root gumbel; dirichlet: AlphaZero's root noise and moves drawn by
visits), and appends each game with its search's visit counts, improved policy and
value of every position to the run's games.jsonl. The run's candidate goes on learning
from the last --window games; it then plays the best network in game pairs (on the
workers too) from the first --gate-openings openings of the game's shipped opening set,
and replaces it only when it scores --lead standard errors above even (and at least
--margin), the replaced file kept in mancala/models/replaced/ and the new one as the
run's next generation. Where there are no weights yet, the first candidate is
installed. --measure PAIRS rates the run's generations against the game's anchors and
the first generation instead of training (docs/az.md).

A run lives in runs/<name>/ (mancala/learn/runs.py) and --resume continues it; each
round prints a line and adds a point to the learning curve (curve.json and .png: win %
of az-net and az against greedy, and on Kalah the share of value-keeping moves of
az-net on the whole-game set). Ctrl+C (exit 130) or SIGTERM (143) loses no finished game
and leaves no half-written weights file.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from pathlib import Path

from mancala.commands.options import add_game_options, add_workers_arguments, game_options
from mancala.core.cli import command_parser, fail, float_in, int_in
from mancala.core.paths import MODELS_DIR
from mancala.core.stopping import run_command
from mancala.games import game
from mancala.learn.runs import Run
from mancala.nn_lib.policy_value import (
    AZ_GAMES,
    LEARNING_RATE,
    VALUE_SCALE,
    board_rules,
    game_text,
)

PROG = "mancala selfplay"


def player_list(text: str) -> tuple[str, ...]:
    """An argparse type: comma-separated names of registered players."""
    from mancala.ai.registry import check_names, split_names

    names = tuple(split_names(text))
    try:
        if not names:
            raise ValueError("name at least one player")
        check_names(names)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return names


def main(argv: list[str] | None = None) -> int:
    parser = command_parser(PROG, __doc__)
    add_game_options(parser, tuple(AZ_GAMES))
    parser.add_argument(
        "--from",
        dest="sources",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="teacher-annotated games to learn from first (a new run only)",
    )
    parser.add_argument(
        "--teacher-games",
        type=int_in(1, 100_000),
        metavar="N",
        help="tak: games of its alpha-beta to learn from first (a new run only)",
    )
    parser.add_argument(
        "--init",
        type=Path,
        metavar="FILE",
        help="a new run's first network: the weights of FILE, a network of another board of "
        "the game with the same shapes",
    )
    parser.add_argument(
        "--scratch",
        action="store_true",
        help="a new run's first network is untrained: it learns from its own games alone",
    )
    parser.add_argument(
        "--value-scale",
        type=float_in(0.5, 100.0),
        default=VALUE_SCALE,
        metavar="SEEDS",
        help="a new network's value of a final margin m: tanh(m / SEEDS); later rounds keep "
        f"the network's own ({VALUE_SCALE:g}; sowing games)",
    )
    parser.add_argument(
        "--rounds", type=int_in(0), help="self-play rounds this time (default: until stopped)"
    )
    parser.add_argument("--games", type=int_in(1), default=100, help="self-play games a round")
    parser.add_argument(
        "--simulations", type=int_in(1, 100_000), default=200, help="az simulations a move (200)"
    )
    parser.add_argument(
        "--root",
        choices=("gumbel", "dirichlet"),
        help="self-play's root: gumbel (Gumbel AlphaZero's sampling and sequential halving, "
        "the improved policy as target; the default) or dirichlet (root noise, moves "
        "drawn by visits for --explore-plies)",
    )
    parser.add_argument(
        "--fast-simulations",
        type=int_in(0, 100_000),
        default=0,
        metavar="N",
        help="gumbel: playout-cap randomisation, a move searched with N simulations and "
        "not learnt from, unless it is one of the --full-share full searches (0: off)",
    )
    parser.add_argument(
        "--full-share",
        type=float_in(0.01, 1.0),
        default=0.25,
        help="gumbel with --fast-simulations: the share of full searches (0.25)",
    )
    parser.add_argument(
        "--search-value",
        type=float_in(0.0, 1.0),
        default=0.0,
        metavar="W",
        help="gumbel: the value target is (1 - W) x the game's outcome + W x the search's "
        "value of the position (0)",
    )
    parser.add_argument(
        "--explore-plies", type=int_in(0), default=12, help="dirichlet: plies drawn by visits (12)"
    )
    parser.add_argument(
        "--window", type=int_in(1), default=2000, help="latest self-play games refit on (2000)"
    )
    parser.add_argument(
        "--epochs",
        type=int_in(1, 100),
        default=2,
        help="self-play: how often a refit learns each position, over the rounds it stays in "
        "the --window; --from, --teacher-games: epochs of the first fit (2)",
    )
    parser.add_argument(
        "--refit-from",
        choices=("candidate", "best"),
        default="candidate",
        help="what a round refits: the run's last candidate, so that training goes on "
        "between promotions (default), or the best network",
    )
    parser.add_argument(
        "--learning-rate",
        type=float_in(1e-6, 1e-2),
        default=LEARNING_RATE,
        help=f"Adam's learning rate of a refit ({LEARNING_RATE:g})",
    )
    parser.add_argument(
        "--gate-openings",
        type=int_in(1, 10_000),
        default=50,
        help="game pairs of the gate: the shipped opening set's first, random ones beyond it (50)",
    )
    parser.add_argument(
        "--margin",
        type=float_in(0.5, 1.0),
        default=0.5,
        help="the least score a candidate needs against the best network to replace it (0.5)",
    )
    parser.add_argument(
        "--lead",
        type=float_in(0.0, 10.0),
        default=2.0,
        metavar="Z",
        help="...and a score at least Z standard errors (of its game pairs) above 50%% (2)",
    )
    parser.add_argument("--eval", type=int_in(0), default=20, help="openings vs greedy (20)")
    parser.add_argument(
        "--measure",
        type=int_in(1, 10_000),
        metavar="PAIRS",
        help="measure the run's promoted generations instead of training: each as az "
        "(--simulations, no solver help) in PAIRS game pairs of the shipped opening set "
        "against the game's anchors and generation 0 (runs/NAME/generations.json, .png)",
    )
    parser.add_argument(
        "--measure-step",
        type=int_in(1),
        default=1,
        metavar="K",
        help="with --measure: every K-th generation and the last (1)",
    )
    parser.add_argument(
        "--anchors",
        type=player_list,
        metavar="P,Q",
        help="with --measure: the fixed opponents (default: the game's anchors)",
    )
    add_workers_arguments(parser)
    parser.add_argument("--run", help="the run's name in runs/ (default: the time)")
    parser.add_argument("--resume", action="store_true", help="continue --run (or the last)")
    parser.add_argument("--runs", type=Path, help=argparse.SUPPRESS)  # tests: another runs/
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="weights folder")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        starts = (
            (args.sources, "--from"),
            (args.teacher_games, "--teacher-games"),
            (args.scratch, "--scratch"),
            (args.init, "--init"),
        )
        for given, flag in starts:
            if args.resume and given:
                raise ValueError(f"{flag} starts a new run; a resumed run goes on by self-play")
        if sum(bool(given) for given, _ in starts) > 1:
            raise ValueError("--from, --teacher-games, --init or --scratch: one way to start a run")
        if args.init and not args.init.is_file():
            raise ValueError(f"--init: no weights file {args.init}")
        args.rules = board_rules(args.variant, game_options(args))
        if args.measure and args.rules != AZ_GAMES[args.variant]:
            raise ValueError("--measure rates the generations of a game's default board only")
        if args.teacher_games and not game(args.variant).search:
            searched = ", ".join(name for name in AZ_GAMES if game(name).search)
            raise ValueError(
                f"--teacher-games plays the game's own alpha-beta ({searched}); "
                f"{args.variant} learns first from --from FILE"
            )
        if args.measure and not (args.resume or args.run):
            raise ValueError("--measure measures a run: name it with --run NAME (or --resume)")
        resume = args.resume or bool(args.measure)
        job = {"job": "selfplay", "game": game_text(args.variant, args.rules)}
        run = Run.open(args.run, resume, *([args.runs] if args.runs else []), job=job)
    except ValueError as error:
        return fail(PROG, str(error))
    run.games.touch()
    kept = (
        f"every finished game is in {run.games} (a teacher's in {run.teacher}); "
        "the weights files are whole; "
        f"continue with --resume --run {run.name}"
    )
    return run_command(PROG, lambda: _run(args, run), kept)


def _run(args: argparse.Namespace, run: Run) -> int:
    from mancala.arena.parallel import Workers
    from mancala.learn.az import Loop
    from mancala.learn.settings import SelfPlaySettings

    if args.measure:
        from mancala.learn.generations import measure, table

        points = measure(
            run, args.variant, args.measure, args.simulations, args.measure_step, args.seed,
            args.anchors,
        )  # fmt: skip
        title = (
            f"{run.name}: az:{args.simulations} by generation, score % ± standard error "
            f"(game pairs of the opening set {args.variant}-a, mean final margin)"
        )
        print("\n" + table(points, title).markdown())
        print(f"\nthe curve: {run.folder / 'generations.png'}")
        return 0

    named = {f.name: getattr(args, f.name) for f in fields(SelfPlaySettings)}
    with Workers(args.workers, args.address) as workers:
        loop = Loop(run, SelfPlaySettings(**named), workers)
        if args.sources:
            loop.pretrain(args.sources)
        elif args.teacher_games:
            loop.pretrain_by_teacher(args.teacher_games)
        elif args.scratch:
            loop.scratch()
        elif args.init:
            loop.adopt(args.init)
        elif planned := loop.teacher_plan():  # a pretraining that was stopped: it goes on
            loop.pretrain_by_teacher(planned)
        number = loop.rounds_done
        while args.rounds is None or number < loop.rounds_done + args.rounds:
            number += 1
            loop.round(number)
    return 0


if __name__ == "__main__":
    sys.exit(main())
