"""How strong the networks of a weights folder are: a run's, or the shipped ones.

    mancala measure weights                          # mancala/models/
    mancala measure weights /tmp/from-nothing --json  # a run's --models folder
    mancala measure weights --variant sungka --against greedy,exact,minimax:4
    mancala measure weights /tmp/from-nothing --held-out --games 300  # the held-out set

For every network with weights in `DIR/GAME/` (GAME the --variant, kalah by default):
on Kalah(6,4), the share of the whole-game set of solved positions (mancala/data/; with
--held-out the held-out set, which no fit and no gate reads) where its move keeps the
position's value and the seeds it loses a move; and its win % against
each player of `--against` (greedy) over `--games` openings of 2 random plies, each
played in both seats (`mancala.arena.pairs`).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from mancala.core.cli import command_parser, fail, int_in
from mancala.core.paths import MODELS_DIR
from mancala.core.report import Table, show
from mancala.core.stopping import run_command
from mancala.games import DEFAULT_GAME
from mancala.nn_lib.boards import NET_GAMES


def measure(
    folder: Path,
    games: int,
    seed: int,
    variant: str = DEFAULT_GAME,
    against: Sequence[str] = ("greedy",),
    kind: str = "whole-game",
) -> Table:
    """The table of the networks in `folder/variant/`, on the solved set of `kind`."""
    from mancala.ai.network import NetworkPlayer
    from mancala.ai.registry import make_player
    from mancala.arena.openings import random_openings
    from mancala.arena.pairs import play_pairs
    from mancala.arena.results import Tally
    from mancala.arena.solved_set import move_quality, shipped_set
    from mancala.game_state import GameState
    from mancala.nn_lib.base import NET_GAMES
    from mancala.nn_lib.zoo import ZOO, network

    start = GameState.new(variant, **NET_GAMES[variant])
    positions = shipped_set(start, kind)
    solved = bool(positions)
    starts, openings = random_openings(start, games, random.Random(seed), 2)
    quality_columns = ["keeps value %", "seeds lost / move"] if solved else []
    table = Table(["network", *quality_columns, *(f"won vs {name} %" for name in against)])
    table.title = f"{folder}: {variant}, {2 * games} games a pair"
    if solved:
        table.title += f", {len(positions)} solved positions ({kind})"
    for name in [name for name in ZOO if (folder / variant / f"{name}.keras").is_file()]:
        net = network(name, folder / variant / f"{name}.keras", variant).load()
        me = NetworkPlayer(net=net)
        row: list = [name]
        if solved:
            quality = move_quality(me.choose_moves, positions)
            row += [round(100 * quality["kept"], 1), round(quality["seeds_lost"], 2)]
        for opponent in against:
            pairs = play_pairs(me, make_player(opponent, seed=seed), starts, openings, seed)
            row.append(round(sum(pairs.seats(), Tally()).win_percent(), 1))
        table.add(*row)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala measure weights", __doc__)
    parser.add_argument("folder", nargs="?", type=Path, default=MODELS_DIR, help="weights")
    parser.add_argument("--games", type=int_in(1, 10_000), default=100, help="openings")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--variant", choices=list(NET_GAMES), default=next(iter(NET_GAMES)))
    parser.add_argument("--against", default="greedy", help="opponents, comma-separated (greedy)")
    parser.add_argument(
        "--held-out", action="store_true", help="the held-out set, not the whole-game set"
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    if not (args.folder / args.variant).is_dir():
        return fail("mancala measure weights", f"no weights folder {args.folder / args.variant}")
    return run_command("mancala measure weights", lambda: _report(args), "nothing is written")


def _report(args: argparse.Namespace) -> int:
    from mancala.ai.registry import split_names

    against = split_names(args.against)
    kind = "held-out" if args.held_out else "whole-game"
    table = measure(args.folder, args.games, args.seed, args.variant, against, kind)
    if not table.rows:
        return fail(
            "mancala measure weights", f"no network of the zoo in {args.folder / args.variant}"
        )
    show([table], args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
