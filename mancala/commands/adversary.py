"""Two networks practise against each other: batches of games, seats swapped, both refit.

    mancala adversary nn1h128 cnns1h128                 # until Ctrl+C
    mancala adversary nn2h80 nnx3h80 --batches 5 --games 100

Each batch plays --games games from random openings, half with each network moving
first (each move a random legal one with probability --explore); every game is
annotated with the teacher's move values and appended to --out as it ends. Then both
networks are refit on all recorded examples (training/*.jsonl and the new games) and
saved atomically. One line a batch: each network's win rate in that batch (exploration
moves included) and the time.
"""

from __future__ import annotations

import argparse
import sys
import time

from mancala.arena.records import record_files
from mancala.core.cli import command_parser
from mancala.core.paths import TRAINING_DIR
from mancala.core.stopping import run_command
from mancala.games import DEFAULT_GAME, game
from mancala.learn.pool import make_pool
from mancala.learn.practice import practice_arguments
from mancala.nn_lib.zoo import ZOO


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala adversary", __doc__)
    parser.add_argument("a", help="a network of the zoo")
    parser.add_argument("b", help="another network of the zoo")
    practice_arguments(parser, TRAINING_DIR / "adversary.jsonl", 100, least_games=2)
    args = parser.parse_args(argv)
    kept = f"every finished game is in {args.out}; the weights files are whole"
    return run_command("mancala adversary", lambda: _run(args, time.perf_counter()), kept)


def _run(args: argparse.Namespace, began: float) -> int:
    from mancala.arena.parallel import Workers

    with Workers(args.workers, args.address) as workers:
        return _practise(args, began, workers)


def _practise(args: argparse.Namespace, began: float, workers) -> int:
    from mancala.arena.parallel import Seat
    from mancala.arena.results import Tally
    from mancala.learn.practice import Practice

    for name in (args.a, args.b):
        if name not in ZOO:
            raise ValueError(f"{name!r} is not a network of the zoo ({', '.join(ZOO)})")
    if args.a == args.b:
        raise ValueError("name two different networks")
    nets, players = make_pool([args.a, args.b], args.models, args.seed)
    recorded = record_files(args.out.parent)
    depth, simulations = args.teacher or (game(DEFAULT_GAME).teacher_depth, 0)
    practice = Practice(
        args.out,
        depth,
        args.seed,
        recorded,
        args.exact_nodes,
        workers=workers,
        teacher_simulations=simulations,
    )
    print(f"{practice.store.games} annotated game(s) ({len(practice.store)} positions) read")
    batch = 0
    while args.batches is None or batch < args.batches:
        batch += 1
        start = time.perf_counter()
        half = args.games // 2
        tallies = {args.a: Tally(), args.b: Tally()}
        a, b = (Seat.of(players[name], args.explore) for name in (args.a, args.b))
        for record in practice.play([(a, b), (b, a)], half):
            for seat, name in enumerate(record["players"]):
                tallies[name].add(record["winner"], seat)
        for net in nets.values():
            practice.refit(net, args.sample, 1)
        rates = ", ".join(f"{n} won {t.win_percent():.0f}%" for n, t in tallies.items())
        print(
            f"batch {batch}: {2 * half} games: {rates} | {practice.recorded} recorded, "
            f"{len(practice.store)} positions | batch {time.perf_counter() - start:.0f} s, "
            f"total {time.perf_counter() - began:.0f} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
