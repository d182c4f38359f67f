"""Round robin: every pair of players plays N games in each seat; a win-rate table and ratings.

    mancala tournament 3                     # every available player
    mancala tournament 200 greedy luck       # named players
    mancala tournament 50 max exact minimax --variant sungka --json
    mancala tournament 20 luck weighted greedy minimax:2 --variant tak --plies 2

Deterministic players would replay one game forever, so game i of every pairing starts
from opening i: a few random plies drawn once per tournament from the seed (both seats
of a pair from the same opening). `--balanced SEEDS` keeps only openings that a depth-12
minimax search judges within SEEDS seeds of even. `--workers N` plays N games at once on
Ray (`--address` joins a cluster, docs/ray.md) and gives the same games
(`mancala.arena.tournament` tells how).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mancala.ai.registry import (
    check_can_play,
    check_names,
    is_interactive,
    tournament_players,
)
from mancala.arena.match import GAME_PLIES
from mancala.arena.opening_sets import load_set
from mancala.arena.openings import BALANCE_DEPTH
from mancala.arena.parallel import Workers
from mancala.arena.tournament import (
    MAX_PLIES,
    describe_openings,
    pair_table,
    rating_table,
    run_tournament,
    win_rate_table,
)
from mancala.commands.options import add_game_options, add_workers_arguments, game_options
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.paths import TRAINING_DIR
from mancala.core.stopping import run_command
from mancala.game_state import GameState
from mancala.games import describe, game_names, new_game


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala tournament", __doc__)
    parser.add_argument("games", type=int_in(1), help="games per pair of players in each seat")
    parser.add_argument("players", nargs="*", help="player names (default: every available)")
    add_game_options(parser, game_names())
    parser.add_argument("--seed", type=int, default=0, help="random seed (openings, players)")
    parser.add_argument(
        "--plies", type=int_in(0, MAX_PLIES), default=4, help="random plies of each opening"
    )
    parser.add_argument(
        "--balanced",
        type=int_in(0),
        metavar="SEEDS",
        help=f"only openings that minimax:{BALANCE_DEPTH} judges within SEEDS seeds of even",
    )
    parser.add_argument(
        "--opening-set",
        metavar="NAME",
        help="the openings of the shipped set NAME of the game (mancala/data/openings/)",
    )
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument(
        "--record",
        nargs="?",
        const=TRAINING_DIR / "tournament.jsonl",
        type=Path,
        help="append every game to this JSONL file (default training/tournament.jsonl)",
    )
    parser.add_argument("--heatmap", type=Path, help="write a win-rate heatmap PNG here")
    add_workers_arguments(parser)
    args = parser.parse_args(argv)
    try:
        start = new_game(args.variant, **game_options(args))
        specs = args.players or tournament_players(args.variant, start)
        check_players(specs, start)
        openings = None
        if args.opening_set:
            openings = set_openings(args.variant, args.opening_set, start)
    except ValueError as error:
        return fail("mancala tournament", str(error))
    kept = f"the finished games are in {args.record}" if args.record else "nothing was recorded"
    return run_command("mancala tournament", lambda: _report(args, specs, start, openings), kept)


def set_openings(game: str, name: str, start: GameState) -> list[list[int]]:
    """The openings of the shipped set `name` of `game`; ValueError unless it is of the
    rules of `start`."""
    opening_set = load_set(game, name)
    if opening_set["options"] != dict(start.options):
        raise ValueError(
            f"the opening set {name!r} is of {game} {opening_set['options']}, "
            f"not {dict(start.options)}"
        )
    return opening_set["openings"]


def check_players(specs: list[str], start: GameState) -> None:
    """ValueError unless every spec names a player that can play `start`'s game alone
    (a person plays in mancala play, not in a tournament)."""
    check_names(specs)
    for spec in specs:
        if is_interactive(spec):
            raise ValueError(
                f"{spec} needs a person at the terminal and cannot sit in a tournament; "
                "play any player yourself with `mancala play PLAYER`"
            )
    check_can_play(specs, start)


def _report(
    args: argparse.Namespace, specs: list[str], start: GameState, openings: list | None
) -> int:
    """Run the tournament of `args` and print (or write) its results."""
    with Workers(args.workers, args.address) as workers:
        result = run_tournament(
            specs,
            args.games,
            start,
            seed=args.seed,
            plies=args.plies,
            balanced=args.balanced,
            record=args.record,
            workers=workers,
            openings=openings,
            opening_set=f"{args.variant}-{args.opening_set}" if openings else None,
        )
    if args.heatmap:
        from mancala.arena.plots import win_rate_heatmap

        win_rate_heatmap(result, args.heatmap)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(
        f"{describe(start)}: {len(specs)} players, {args.games} game(s) a pair in each seat, "
        f"{result['seconds']:.1f} s"
    )
    if result["unfinished"]:
        print(f"{result['unfinished']} game(s) not over after {GAME_PLIES} plies: draws.")
    print(describe_openings(result))
    print()
    print(win_rate_table(result))
    print()
    print(rating_table(result))
    print()
    print("Game pairs (each opening in both seats, the first player's score):")
    print(pair_table(result))
    if args.record:
        print(f"\nGames appended to {args.record}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
