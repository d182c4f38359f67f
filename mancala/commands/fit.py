"""Refit one network of the zoo from recorded games (training/*.jsonl, or the given files).

    mancala fit nn1h128                      # from every training/*.jsonl
    mancala fit cnns1h128 --epochs 10 training/random_train.jsonl
    mancala fit nn2h80 --fresh               # start from untrained weights
    mancala fit az-net --value-scale 24 --init mancala/models/kalah/az-net.keras \
        --models /tmp/exact --settle --exact-only mancala/data/kalah/*.jsonl.xz
    mancala fit nnx2h256 --init mancala/models/kalah/nnx2h256.keras --models /tmp/exact \
        --settle --learning-rate 0.0003 --epochs 2 --exact-only mancala/data/kalah/*.jsonl.xz
                                             # the shipped weights, refit on exact labels

The examples are the games' positions with the teacher's value of every legal move (the
"values" key that mancala train and mancala adversary record); games without it are
counted and left out. Files are streamed in chunks of --chunk positions, so they need not
fit in memory (one chunk is kept between epochs). Corrupt lines are skipped and counted.
The network starts from its weights in the output folder when there are some, else from
the shipped ones (unless --fresh, or --init FILE: that file's weights), and is saved
atomically to runs/fit/GAME/NAME.keras (or DIR/GAME/ with --models DIR), GAME the
--variant (kalah): never over the shipped weights unless asked to with --models
mancala/models. `mancala promote DIR NAME` then puts a network fitted in DIR in place of
the shipped one through the gate. The name
`az-net` fits the policy-value network of the sowing games (docs/az.md) on the same
records: its policy a soft choice among the teacher's move values (a move one seed worse
gets 1/e the weight), its value the best move's final margin m as tanh(m / --value-scale)
plus a score utility weighted by --score-weight (`mancala.games.sowing.margin_value`; the
network's own unless given; a fresh one's 2 seeds and 0).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mancala.core.cli import command_parser, float_in, int_in
from mancala.core.paths import FIT_DIR
from mancala.core.stopping import run_command
from mancala.games import DEFAULT_GAME
from mancala.nn_lib.base import LEARNING_RATE, NET_GAMES, weights_path
from mancala.nn_lib.zoo import ZOO, network

AZ_NET = "az-net"  # the policy-value network (mancala/nn_lib/policy_value.py)


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala fit", __doc__)
    parser.add_argument("name", help="the network: " + ", ".join([*ZOO, AZ_NET]))
    parser.add_argument("paths", nargs="*", type=Path, help="JSONL files (default training/)")
    parser.add_argument("--epochs", type=int_in(1), default=5, help="passes over the data (5)")
    parser.add_argument("--batch-size", type=int_in(1), default=256)
    parser.add_argument("--chunk", type=int_in(1), default=500_000, help="positions held at once")
    parser.add_argument("--fresh", action="store_true", help="start from untrained weights")
    parser.add_argument("--init", type=Path, metavar="FILE", help="start from these weights")
    parser.add_argument(
        "--models", type=Path, default=FIT_DIR, help="the fitted weights' folder (runs/fit)"
    )
    parser.add_argument(
        "--learning-rate",
        type=float_in(1e-6, 1.0),
        default=LEARNING_RATE,
        help=f"Adam's ({LEARNING_RATE:g})",
    )
    parser.add_argument(
        "--exact-only", action="store_true", help="learn the positions of exact labels alone"
    )
    parser.add_argument(
        "--settle",
        action="store_true",
        help="the rate falls from --learning-rate to a tenth of it over the fit (a refit)",
    )
    parser.add_argument("--objective", choices=["policy", "values"], default="policy")
    parser.add_argument(
        "--variant", choices=list(NET_GAMES), default=DEFAULT_GAME, help="the game (kalah)"
    )
    parser.add_argument(
        "--value-scale",
        type=float_in(0.5, 100.0),
        metavar="SEEDS",
        help="az-net: its value of a final margin m is tanh(m / SEEDS)",
    )
    parser.add_argument(
        "--score-weight",
        type=float_in(0.0, 0.9),
        metavar="W",
        help="az-net: the share of a score utility in its value (0: none)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return run_command("mancala fit", lambda: _train(args), "the weights file is left as it was")


def _train(args: argparse.Namespace) -> int:
    for path in args.paths:
        if not path.is_file():
            raise ValueError(f"no such file: {path}")
    if args.init is not None and args.fresh:
        raise ValueError("--fresh and --init name two different starts; give one")
    if args.init is not None and not args.init.is_file():
        raise ValueError(f"no weights file {args.init}")
    if args.name == AZ_NET:
        return _train_policy_value(args)
    if args.value_scale is not None or args.score_weight is not None:
        raise ValueError(
            "--value-scale and --score-weight are az-net's; a zoo network learns seeds as they are"
        )
    path = weights_path(args.name, args.variant, args.models)
    _start_from_shipped(args, path, weights_path(args.name, args.variant))
    if args.init is not None:
        net = network(args.name, args.init, args.variant).load()
        net.path = path
    else:
        net = network(args.name, path, args.variant)
    net.objective = net.view.objective or args.objective
    return train(net, args)


def train(net, args: argparse.Namespace) -> int:
    import numpy as np

    from mancala.learn.data import PositionReader
    from mancala.nn_lib.training import agreement, fit_settling, settling_rate

    reader = PositionReader(args.paths or None, chunk=args.chunk, exact_only=args.exact_only)
    if args.fresh:
        net.fresh(args.seed)
        print(f"{net.name}: fresh weights")
    elif args.init is not None:
        print(f"{net.name}: weights from {args.init}")
    else:
        _, loaded = net.load_or_fresh(args.seed)
        print(f"{net.name}: {'weights from ' + str(net.path) if loaded else 'fresh weights'}")
    net.compile(args.learning_rate)
    rng = np.random.default_rng(args.seed)
    kept = None  # the only chunk, when everything fits in one
    board = net.view.blank().shape[1:]  # the pits of a board of the network's game
    began = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        chunks = [kept] if kept is not None else reader
        losses, positions, score = [], 0, 0.0
        count = 0
        for rel, gains, mask in chunks:
            if rel.shape[1:] != board:
                raise ValueError(
                    f"the files hold positions of another board than {net.variant}'s "
                    f"({rel.shape[1]} pits, not {board[0]}); pick its --variant"
                )
            count, last = count + 1, (rel, gains, mask)
            order = rng.permutation(len(rel))
            examples = rel[order], gains[order], mask[order]
            if args.settle:  # each chunk of this epoch: its share of the falling rate
                rates = [
                    settling_rate(args.learning_rate, (epoch - k) / args.epochs) for k in (1, 0)
                ]
                losses.append(fit_settling(net, *examples, (rates[0], rates[1]), args.batch_size))
            else:
                losses.append(net.fit(*examples, batch_size=args.batch_size))
            positions += len(rel)
            score += agreement(net, rel, gains, mask) * len(rel)
        if epoch == 1:
            if not positions:
                raise ValueError(
                    f"no annotated games to learn from ({reader.unannotated} game(s) without "
                    f"move values, {reader.skipped} corrupt line(s) skipped); record some "
                    f"with `mancala train`"
                )
            print(
                f"{reader.games} annotated game(s), {positions} positions; "
                f"{reader.unannotated} game(s) without move values left out; "
                f"{reader.skipped} corrupt or invalid line(s) skipped"
            )
            if count == 1:
                kept = last
        print(
            f"epoch {epoch}/{args.epochs}: loss {np.mean(losses):.4f}, plays a best move of "
            f"the teacher in {score / positions:.1f}% of positions, "
            f"{time.perf_counter() - began:.0f} s",
            flush=True,
        )
    return _saved(net, args, reader, positions)


def _train_policy_value(args: argparse.Namespace) -> int:
    """`mancala fit az-net`: the policy-value network of --variant fitted on the records'
    teacher values, epoch by epoch, chunk by chunk."""
    import numpy as np

    from mancala.learn.data import PositionReader
    from mancala.nn_lib.policy_value import PolicyValue, teacher_targets, weights_file
    from mancala.nn_lib.training import settling_rate

    target = weights_file(args.variant, args.models)
    _start_from_shipped(args, target, weights_file(args.variant))
    if args.init is not None:
        net = PolicyValue(args.variant, args.init).load()
        net.path = target
        print(f"{AZ_NET}: weights from {args.init}")
    else:
        net = PolicyValue(args.variant, target)
        _, loaded = (net.fresh(args.seed), False) if args.fresh else net.load_or_fresh(args.seed)
        print(f"{AZ_NET}: {'weights from ' + str(target) if loaded else 'fresh weights'}")
    if args.value_scale is not None:
        net.value_scale = args.value_scale
    if args.score_weight is not None:
        net.score_weight = args.score_weight
    reader = PositionReader(args.paths or None, chunk=args.chunk, exact_only=args.exact_only)
    began, positions = time.perf_counter(), 0
    for epoch in range(1, args.epochs + 1):
        rate = args.learning_rate
        if args.settle:
            rate = settling_rate(args.learning_rate, (epoch - 1) / max(1, args.epochs - 1))
        losses, positions = [], 0
        for rel, gains, mask in reader:
            targets = teacher_targets(rel, gains, mask, net.value_scale, net.score_weight)
            losses.append(net.fit(targets, batch_size=args.batch_size, learning_rate=rate))
            positions += len(rel)
        if not positions:
            raise ValueError(
                f"no annotated positions to learn from ({reader.skipped} corrupt or invalid "
                "line(s) skipped)"
            )
        print(
            f"epoch {epoch}/{args.epochs}: loss {np.mean(losses):.4f}, {positions:,} "
            f"positions, value scale {net.value_scale:g} seeds, score weight "
            f"{net.score_weight:g}, rate {rate:.2g}, "
            f"{time.perf_counter() - began:.0f} s",
            flush=True,
        )
    return _saved(net, args, reader, positions)


def _start_from_shipped(args: argparse.Namespace, target: Path, shipped: Path) -> None:
    """With neither --init nor --fresh and no weights at `target` yet, the fit starts from
    the `shipped` ones (when they exist): it refits them, and saves to `target`."""
    if args.init is None and not args.fresh and not target.is_file() and shipped.is_file():
        args.init = shipped


def _saved(net, args: argparse.Namespace, reader, positions: int) -> int:
    """Save the fitted `net` with what taught it, say where; the exit code."""
    from mancala.nn_lib.meta import describe_data

    data = describe_data(args.paths, reader.games, positions)
    print(f"saved {net.save(teacher=' + '.join(reader.teachers), data=data)}")
    name = AZ_NET if args.name == AZ_NET else net.name
    gate = ["mancala", "promote", str(args.models), name, "--variant", args.variant]
    print(f"`{' '.join(gate)}` puts it through the gate in place of the shipped weights")
    return 0


if __name__ == "__main__":
    sys.exit(main())
