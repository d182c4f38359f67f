"""The options several commands share, each checked on the way in: not a verb of its own
(the only module of `mancala/commands/` that other commands import).

The main job's (`mancala train` and its presets), the games' (`--variant` and each game's
rule options, declared from the registry of games), the workers' (`--workers`,
`--address`) and the solver's sizes (`--max-seeds`, `--tt-bits`). Nothing below the
commands sees argparse: the libraries are given what these options read as plain values.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from mancala.ai.registry import check_names, split_names
from mancala.core.cli import add_alias, float_in, int_in
from mancala.core.stopping import run_command
from mancala.games import GAMES, game
from mancala.games.options import options_for, rule_options
from mancala.games.sowing.solver.database import MAX_DB_SEEDS
from mancala.games.sowing.solver.options import COMMAND_TT_BITS, MAX_TT_BITS
from mancala.learn.practice import MAX_TEACHER_DEPTH, MAX_TEACHER_SIMULATIONS
from mancala.learn.runs import Run
from mancala.learn.settings import TrainSettings
from mancala.nn_lib.base import ZOO_GAMES
from mancala.nn_lib.boards import board_rules
from mancala.nn_lib.policy_value import NAME as AZ_NET
from mancala.nn_lib.policy_value import game_text

DEFAULT = TrainSettings(players=())  # the main job's defaults, as its options show them


def teacher_arg(text: str) -> tuple[int, int]:
    """An argparse type: --teacher as (alpha-beta's depth, az's simulations), one of them 0.

    >>> teacher_arg("8"), teacher_arg("az:800")
    ((8, 0), (0, 800))
    """
    if text.startswith("az:"):
        return 0, int_in(1, MAX_TEACHER_SIMULATIONS)(text[3:])
    return int_in(1, MAX_TEACHER_DEPTH)(text), 0


def main_job_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the main job (`mancala train` and its presets), each checked on the
    way in; the defaults are `TrainSettings`'s."""
    parser.add_argument(
        "--per-pairing", type=int_in(1), default=DEFAULT.per_pairing, help="games a pairing"
    )
    parser.add_argument(
        "--epochs", type=int_in(1), default=DEFAULT.epochs, help="epochs over the sample"
    )
    parser.add_argument(
        "--learning-rate",
        type=float_in(1e-6, 1.0),
        default=DEFAULT.learning_rate,
        help=f"Adam's ({DEFAULT.learning_rate:g}; lower to fine-tune shipped weights)",
    )
    parser.add_argument(
        "--missed-weight",
        type=float_in(1.0, 100.0),
        default=DEFAULT.missed_weight,
        help="the loss's weight of a position where the network's first choice is not the "
        "teacher's (1: every position alike)",
    )
    parser.add_argument(
        "--eval-games",
        type=int_in(1),
        default=DEFAULT.eval_games,
        help="openings a measurement (x2 seats)",
    )
    add_alias(parser, "--eval", "eval_games", type=int_in(1))
    parser.add_argument(
        "--record-only", action="store_true", help="play and record; refit no network"
    )
    add_game_options(
        parser,
        tuple(ZOO_GAMES),
        "the game the networks learn, on its default board unless its rules are given "
        "(--size 6): Kalah(6,4), Sungka(7,7) or Tak 5x5, komi 0 (kalah)",
    )
    parser.add_argument(
        "--labels",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="labels the refits learn from beside the games (default: those shipped "
        "for the board, mancala/data/GAME/; --labels alone: none)",
    )
    parser.add_argument(
        "--exact-games",
        action="store_true",
        help="on a board the solver reaches, learn from the run's games as from the labels: "
        "their positions whose every move is proved exact alone",
    )
    parser.add_argument("--run", help="the run's name in runs/, or a folder (default: the time)")
    parser.add_argument("--resume", action="store_true", help="continue --run (or the last)")
    parser.add_argument(
        "--gate-every", type=int_in(1), default=DEFAULT.gate_every, help="batches between gates"
    )
    parser.add_argument(
        "--gate-openings",
        type=int_in(1, 10_000),
        default=DEFAULT.gate_openings,
        help="openings of the gate, each played in both seats ({DEFAULT.gate_openings})",
    )
    parser.add_argument(
        "--gate-opponents",
        help="fixed opponents of the gate, comma-separated ("
        + "; ".join(f"{name}: {','.join(game(name).gate)}" for name in ZOO_GAMES)
        + f"; {AZ_NET}'s where no solved set judges it: the game's anchors)",
    )
    parser.add_argument(
        "--expert-check",
        type=int_in(0, 10_000),
        default=DEFAULT.expert_check,
        metavar="K",
        help="with --teacher az:N, K held-out positions (Kalah) or game pairs of the fixed "
        f"set (Sungka) that must show az the stronger labeller first "
        f"({DEFAULT.expert_check}; 0: none)",
    )
    parser.add_argument(
        "--wait-for-refits",
        action="store_true",
        help="with --workers N, play each batch only once the refits of the last are done, "
        "by their weights (by default Ray workers play the next batch during the refits, "
        "with the weights before them)",
    )
    parser.add_argument("--batches", type=int_in(1), help="stop after this many batches")
    parser.add_argument(
        "--games", type=int_in(1), default=DEFAULT.games, help=f"games a batch ({DEFAULT.games})"
    )
    parser.add_argument(
        "--teacher",
        type=teacher_arg,
        help="teacher: alpha-beta's depth (Kalah 10, Sungka 8, where Sungka's relay sowing "
        f"makes each ply dearer, Tak 3; 1..{MAX_TEACHER_DEPTH}), or az:SIMULATIONS, az "
        "guided by the shipped network (Kalah, Sungka)",
    )
    parser.add_argument(
        "--exact-nodes",
        type=int_in(0),
        default=DEFAULT.exact_nodes,
        help="teacher (Kalah): the solver's exact values where it proves them within this "
        f"many nodes ({DEFAULT.exact_nodes:,}; 0: alpha-beta only)",
    )
    parser.add_argument(
        "--keep",
        type=int_in(1000),
        default=DEFAULT.keep,
        help=f"examples kept in memory for the refits ({DEFAULT.keep:,}; a Tak position's "
        "moves count one each)",
    )
    parser.add_argument(
        "--explore", type=float_in(0.0, 1.0), default=DEFAULT.explore, help="random-move rate"
    )
    parser.add_argument(
        "--sample",
        type=int_in(1),
        default=DEFAULT.sample,
        help=f"examples a refit ({DEFAULT.sample:,}; as --keep counts)",
    )
    parser.add_argument("--out", type=Path, help="games go here (the run's games.jsonl)")
    parser.add_argument("--models", type=Path, help="weights folder (default mancala/models)")
    parser.add_argument("--seed", type=int, default=DEFAULT.seed)
    add_workers_arguments(parser)


def main_job_settings(args: argparse.Namespace, players: list[str]) -> tuple[TrainSettings, Run]:
    """The main job's settings for `players` from its parsed options, and its run folder
    (opened: made, or found with --resume); ValueError saying what is wrong."""
    given = split_names(args.gate_opponents) if args.gate_opponents else []
    opponents = given or [*game(args.variant).gate]
    rules = board_rules(args.variant, game_options(args))
    check_names(players + opponents)
    if len(set(players) - {AZ_NET}) < 2:
        raise ValueError(f"name at least two different players ({AZ_NET} plays no games)")
    from mancala.learn.main_job import check_players  # the main job's modules: when it runs

    check_players(players + opponents, args.variant, rules)
    job = {"job": "train", "game": game_text(args.variant, rules)}
    run = Run.open(args.run, args.resume, job=job)
    named = {f.name: getattr(args, f.name) for f in fields(TrainSettings) if hasattr(args, f.name)}
    settings = TrainSettings(
        **named
        | {
            "players": tuple(players),
            "rules": rules,
            "labels": None if args.labels is None else tuple(args.labels),
            "gate_opponents": tuple(given),
            "out": args.out or run.games,
        }
    )
    return settings, run


def run_main_job_command(prog: str, settings: TrainSettings, run: Run) -> int:
    """Run the main job as the command `prog`: its exit code, Ctrl+C and SIGTERM said."""
    kept = (
        f"every finished game is in {settings.out}; the weights files are whole; "
        f"continue with --resume --run {run.name}"
    )
    from mancala.learn.main_job import run_main_job

    return run_command(prog, lambda: run_main_job(settings, run, time.perf_counter()), kept)


def workers_count(text: str) -> int | str:
    """An argparse type: a whole number >= 1, or "auto" (one worker a CPU).

    >>> workers_count("3"), workers_count("auto")
    (3, 'auto')
    """
    if text == "auto":
        return text
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f'must be a whole number >= 1 or "auto", not {text!r}')
    return count


def add_workers_arguments(parser: argparse.ArgumentParser) -> None:
    """--workers and --address, as every command that plays many games takes them
    (`mancala.arena.parallel.Workers(args.workers, args.address)`)."""
    parser.add_argument(
        "--workers",
        type=workers_count,
        default=1,
        help='games played N ways at once, on Ray ("auto": one a CPU; 1: here, no Ray)',
    )
    parser.add_argument(
        "--address", help="join this Ray cluster (`ray start --head` prints it), e.g. HOST:6379"
    )


def add_game_options(
    parser: argparse.ArgumentParser, games: Sequence[str], help: str = "the game"
) -> None:
    """--variant, one of `games` (the first by default), and every rule option of them
    (`mancala.games.options.rule_options`), each checked on the way in.

    >>> from mancala.core.cli import command_parser
    >>> parser = command_parser("demo")
    >>> add_game_options(parser, ("kalah", "sungka", "tak"))
    >>> game_options(parser.parse_args(["--houses", "4", "--empty-capture"]))
    {'houses': 4, 'empty_capture': True}
    >>> game_options(parser.parse_args(["--variant", "sungka", "--empty-capture"]))
    Traceback (most recent call last):
    ...
    ValueError: --empty-capture is not a rule of sungka
    """
    parser.add_argument("--variant", choices=tuple(games), default=games[0], help=help)
    for option in rule_options(games):
        if option.low is None:
            parser.add_argument(option.flag, action="store_true", help=option.help)
        else:
            span = f"{option.low}..{option.high}"
            kind = int_in(option.low, option.high)
            parser.add_argument(option.flag, type=kind, help=f"{option.help} ({span})")


def game_options(args: argparse.Namespace) -> dict[str, Any]:
    """The rule options of `add_game_options`' arguments, for `mancala.games.new_game`;
    ValueError for an option of another game."""
    given = {
        option.key: getattr(args, option.key)
        for option in rule_options(list(GAMES))
        if _given(args, option.key)
    }
    return options_for(args.variant, given)


def _given(args: argparse.Namespace, key: str) -> bool:
    """Whether the option `key` was given (a number, or a switch that is set)."""
    value = getattr(args, key, None)
    return value is not None and value is not False


def add_solver_options(parser: argparse.ArgumentParser) -> None:
    """--max-seeds and --tt-bits, checked on the way in: the sizes of
    `mancala.games.sowing.solver.options.solver_for` (`max_seeds`, `tt_bits`)."""
    parser.add_argument(
        "--max-seeds",
        type=int_in(0, MAX_DB_SEEDS),
        help=f"endgame database size (seeds left, 0..{MAX_DB_SEEDS}; "
        "default: the largest cached, at least the players' size)",
    )
    parser.add_argument(
        "--tt-bits",
        type=int_in(10, MAX_TT_BITS),
        default=COMMAND_TT_BITS,
        help=f"log2 table entries (10..{MAX_TT_BITS}; {COMMAND_TT_BITS}; 16 bytes each)",
    )
