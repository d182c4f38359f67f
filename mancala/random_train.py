"""Forever (until Ctrl+C or --batches K): random matches -> JSONL -> refit every network.

    python mancala/random_train.py                       # the zoo, luck, greedy, minimax
    python mancala/random_train.py --batches 20 --games 200
    python mancala/random_train.py nn1h128 greedy minimax:4 --explore 0.2
    python mancala/random_train.py nnx2h256 greedy --record-only --teacher 10

Each batch plays random pairings of the players (each move a random legal one with
probability --explore), annotates every game with the teacher's value of each legal move
(alpha-beta to --teacher plies) and appends it to --out the moment it ends. Then every
network is refit on the examples recorded so far (a sample of at most --sample of them),
saved atomically to mancala/models/NAME.keras, and played against greedy and luck; one
line a batch, and the learning curve in mancala/models/learning_curve.{json,png}.
With --record-only the networks play with their current weights and nothing is refit:
the games of a chosen network against chosen opponents, annotated by a deeper teacher,
for `train.py` to learn from.
Ctrl+C (exit 130) or SIGTERM (exit 143) loses no recorded game and leaves no half-written
weights file.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mancala.ai.registry import check_names
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.stopping import run_command
from mancala.nn_lib.training import practice_arguments
from mancala.nn_lib.zoo import ZOO
from mancala.recorder import TRAINING_DIR

OTHERS = ["luck", "greedy", "minimax:2", "minimax:4", "minimax:6"]


def make_pool(specs: list[str], models: Path | None, seed: int) -> tuple[dict, dict]:
    """(networks by name, players by spec): zoo names become networks (their weights
    loaded when the file exists, else fresh, which is said), the rest registry players."""
    from mancala.ai.network import NetworkPlayer
    from mancala.ai.registry import make_player
    from mancala.nn_lib.zoo import ZOO, network

    nets, players = {}, {}
    for i, spec in enumerate(specs):
        if spec in ZOO:
            path = models / f"{spec}.keras" if models else None
            net, loaded = network(spec, path).load_or_fresh(seed + i)
            print(f"{spec}: {'weights from ' + str(net.path) if loaded else 'fresh weights'}")
            nets[spec] = net
            players[spec] = NetworkPlayer(seed=seed + i, net=net)
        else:
            players[spec] = make_player(spec, seed=seed + i)
    return nets, players


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("random_train", __doc__)
    parser.add_argument(
        "players", nargs="*", help="players (default: the zoo and " + ", ".join(OTHERS) + ")"
    )
    parser.add_argument("--per-pairing", type=int_in(1), default=8, help="games a pairing (8)")
    parser.add_argument("--epochs", type=int_in(1), default=1, help="epochs over the sample")
    parser.add_argument(
        "--eval", type=int_in(1), default=20, help="openings a measurement (x2 seats)"
    )
    parser.add_argument(
        "--record-only", action="store_true", help="play and record; refit no network"
    )
    practice_arguments(parser, TRAINING_DIR / "random_train.jsonl", 240)
    args = parser.parse_args(argv)
    specs = args.players or [*ZOO, *OTHERS]
    try:
        check_names(specs)
        if len(set(specs)) < 2:
            raise ValueError("name at least two different players")
    except ValueError as error:
        return fail("random_train", str(error))
    kept = f"every finished game is in {args.out}; the weights files are whole"
    return run_command("random_train", lambda: _run(args, specs, time.perf_counter()), kept)


def _run(args: argparse.Namespace, specs: list[str], began: float) -> int:
    from mancala.ai.network import NetworkPlayer
    from mancala.ai.registry import make_player
    from mancala.nn_lib.base import MODELS_DIR
    from mancala.nn_lib.training import Explorer, LearningCurve, Practice, win_rate

    nets, players = make_pool(specs, args.models, args.seed)
    if args.record_only:
        nets = {}
    recorded = sorted(args.out.parent.glob("*.jsonl"))
    practice = Practice(
        args.out, args.teacher, args.seed, recorded if nets else None, args.exact_nodes
    )
    if nets:
        print(
            f"{practice.store.games} annotated game(s) ({len(practice.store)} positions) "
            f"already in {args.out.parent}; teacher {practice.teacher.name}"
        )
    curve = LearningCurve((args.models or MODELS_DIR) / "learning_curve.json", fresh=not recorded)
    offset = curve.points[-1]["minutes"] if curve.points else 0.0
    rng = random.Random(args.seed)
    judges = {"greedy": make_player("greedy", seed=1), "luck": make_player("luck", seed=1)}
    batch = 0
    while args.batches is None or batch < args.batches:
        batch += 1
        start = time.perf_counter()
        for _ in range(max(1, args.games // args.per_pairing)):
            one, two = rng.sample(specs, 2)
            practice.play(
                Explorer(players[one], args.explore, rng.randrange(1 << 30)),
                Explorer(players[two], args.explore, rng.randrange(1 << 30)),
                args.per_pairing,
            )
        played = time.perf_counter() - start
        if not nets:  # only recording
            teacher = practice.teacher
            exact = f", {teacher.exact} of them exact" if teacher.exact_nodes else ""
            print(
                f"batch {batch}: {practice.recorded} games recorded "
                f"({teacher.exact + teacher.searched} positions valued{exact}), {played:.0f} s, "
                f"total {(time.perf_counter() - began) / 60:.1f} min",
                flush=True,
            )
            continue
        losses = {name: practice.refit(net, args.sample, args.epochs) for name, net in nets.items()}
        rates = {
            judge: {
                name: win_rate(NetworkPlayer(net=net), opponent, args.eval)
                for name, net in nets.items()
            }
            for judge, opponent in judges.items()
        }
        minutes = offset + (time.perf_counter() - began) / 60
        curve.add(
            {
                "batch": batch,
                "minutes": round(minutes, 2),
                "games": practice.store.games,
                "positions": len(practice.store),
                "rates": rates,
                "loss": losses,
            }
        )
        against = " ".join(f"{n} {r:.0f}" for n, r in rates["greedy"].items()) or "-"
        print(
            f"batch {batch}: {practice.recorded} games recorded ({practice.store.games} in all, "
            f"{len(practice.store)} positions) | % won vs greedy: {against} | "
            f"play {played:.0f} s, batch {time.perf_counter() - start:.0f} s, "
            f"total {minutes:.1f} min",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
