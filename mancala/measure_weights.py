"""How strong the Kalah(6,4) networks of a weights folder are: a run's, or the shipped ones.

    python mancala/measure_weights.py                          # mancala/models/
    python mancala/measure_weights.py /tmp/from-nothing --json  # a run's --models folder

For every network with weights in `DIR/kalah/`: the share of the whole-game set of
solved positions (mancala/data/) where its move keeps the position's value, the seeds it
loses a move, and its win % against greedy over `--games` openings of 2 random plies,
each played in both seats.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from mancala.core.cli import command_parser, fail, int_in
from mancala.core.paths import MODELS_DIR
from mancala.core.report import Table, show
from mancala.core.stopping import run_command


def measure(folder: Path, games: int, seed: int) -> Table:
    """The table of the networks in `folder/kalah/`."""
    from mancala.ai.network import NetworkPlayer
    from mancala.ai.registry import make_player
    from mancala.arena.match import play_games
    from mancala.arena.openings import random_openings
    from mancala.arena.results import Tally
    from mancala.arena.solved_set import load, move_quality
    from mancala.game_state import GameState
    from mancala.nn_lib.zoo import ZOO

    positions = load()[1]
    starts, openings = random_openings(GameState.new(), games, random.Random(seed), 2)
    table = Table(["network", "keeps value %", "seeds lost / move", "won vs greedy %"])
    table.title = f"{folder}: {len(positions)} solved positions, {2 * games} games vs greedy"
    for name in [name for name in ZOO if (folder / "kalah" / f"{name}.keras").is_file()]:
        me = NetworkPlayer(network=name, path=folder / "kalah" / f"{name}.keras")
        quality = move_quality(me.choose_moves, positions)
        tally = Tally()
        for seat in (0, 1):
            greedy = make_player("greedy", seed=seed)
            seated = [me, greedy] if seat == 0 else [greedy, me]
            tally.add_records(play_games(seated, starts, openings=openings, seed=seed), seat)
        kept, lost = 100 * quality["kept"], quality["seeds_lost"]
        table.add(name, round(kept, 1), round(lost, 2), round(tally.win_percent(), 1))
    return table


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("measure_weights", __doc__)
    parser.add_argument("folder", nargs="?", type=Path, default=MODELS_DIR, help="weights")
    parser.add_argument("--games", type=int_in(1, 10_000), default=100, help="openings")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    if not (args.folder / "kalah").is_dir():
        return fail("measure_weights", f"no Kalah weights folder {args.folder / 'kalah'}")
    return run_command("measure_weights", lambda: _report(args), "nothing is written")


def _report(args: argparse.Namespace) -> int:
    table = measure(args.folder, args.games, args.seed)
    if not table.rows:
        return fail("measure_weights", f"no network of the zoo in {args.folder / 'kalah'}")
    show([table], args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
