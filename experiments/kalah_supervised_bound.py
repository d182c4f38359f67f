"""The supervised bound of each network form on Kalah(6,4): fit it on exact labels, then
measure it on the held-out set (docs/perfect_play.md, "The supervised bound").

    python experiments/kalah_supervised_bound.py runs/labels/*.jsonl --out /tmp/bound \
        --forms nnx2h256 nnxat2h512 --epochs 8 [--from-shipped] [--exact-only]

For each form: fit on the labelled games of the given files (`mancala solve labels`;
positions of the held-out set left out), fresh or from the shipped weights
(`--from-shipped`), save to OUT/kalah/NAME.keras, and print one row: the
share of its training positions with exact labels (a sample) and of the held-out set
where its move keeps the value, seeds lost a move on each, the paired difference from
the shipped file on the held-out set, and the forward pass's time a move.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np

from mancala.ai.network import NetworkPlayer
from mancala.arena.solved_set import HELD_OUT, SolvedPosition, load, move_quality, paired, set_file
from mancala.core.paths import MODELS_DIR
from mancala.core.report import Table
from mancala.game_state import GameState
from mancala.games.examples import Examples
from mancala.learn.data import record_positions
from mancala.learn.labels import labelled, positions
from mancala.nn_lib.training import fit_settling, settling_rate
from mancala.nn_lib.zoo import ZOO, network

TRAIN_SAMPLE = 2000  # exact training positions the training figure is measured on


def examples(files: list[Path], exact_only: bool) -> tuple[np.ndarray, ...]:
    """(boards, gains, mask) of every labelled position of `files` (the held-out set's
    left out, as every fit leaves them), with exact labels only if asked."""
    parts = [record_positions(record, exact_only) for record in labelled(files)]
    return Examples.joined([p for p in parts if p is not None])


def exact_sample(files: list[Path], held_out: set, count: int, seed: int) -> list[SolvedPosition]:
    """`count` training positions whose labels are exact, as solved positions."""
    found = [
        SolvedPosition((), state, {m: v for m, v in enumerate(values) if v is not None})
        for state, values, exact, _ in positions(labelled(files))
        if exact and state not in held_out
    ]
    return random.Random(seed).sample(found, min(count, len(found)))


def wider(name: str, hidden: str | None):
    """The zoo form `name`, or a scratch variant of it with `hidden` layers ("512,512")."""
    if not hidden:
        return network(name)
    layers = tuple(int(n) for n in hidden.split(","))
    variant = type(f"{name}-{hidden}", (ZOO[name],), {"hidden": layers})
    return variant(None, "kalah")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--forms", nargs="+", default=["nnx2h256", "nnxat2h512"])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--from-shipped", action="store_true")
    parser.add_argument("--measure-only", action="store_true", help="measure OUT's weights")
    parser.add_argument("--hidden", help="fresh forms with these hidden layers, e.g. 512,512,512")
    parser.add_argument("--exact-only", action="store_true", help="leave out searched labels")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    _, held = load(set_file(GameState.new(), HELD_OUT))
    held_out = {p.state for p in held}
    boards, gains, mask = examples(args.files, args.exact_only)
    order = np.random.default_rng(args.seed).permutation(len(boards))
    boards, gains, mask = boards[order], gains[order], mask[order]
    train = exact_sample(args.files, held_out, TRAIN_SAMPLE, args.seed)
    print(f"{len(boards):,} training positions; {len(held)} held-out positions")
    table = Table(
        [
            "form",
            "start",
            "train keeps %",
            "held-out keeps %",
            "seeds lost",
            "vs shipped (points)",
            "by stage: keeps % at 0-24 / 25-30 / 31-36 / 37-42 / 43+ seeds",
            "ms / move",
        ]
    )
    for name in args.forms:
        shipped_file = MODELS_DIR / "kalah" / f"{name}.keras"
        shipped = network(name, shipped_file).load()
        mine_file = args.out / "kalah" / f"{name}.keras"
        began = time.perf_counter()
        if args.measure_only:  # weights fitted already (`mancala fit ... --models OUT`)
            net, start = network(name, mine_file).load(), "as given"
        else:
            if args.from_shipped:
                net, start = network(name, shipped_file).load(), "shipped"
            else:
                net, start = wider(name, args.hidden).fresh(args.seed), "fresh"
            for epoch in range(args.epochs):  # the rate settling over the whole fit
                first, last = (
                    settling_rate(args.learning_rate, (epoch + k) / args.epochs) for k in (0, 1)
                )
                fit_settling(net, boards, gains, mask, (first, last), batch_size=512)
            data = ", ".join(str(f) for f in args.files)
            net.save(mine_file, teacher="exact labels", data=data)
        fitted = time.perf_counter() - began
        player, before = NetworkPlayer(net=net), NetworkPlayer(net=shipped)
        mine = move_quality(player.choose_moves, held)
        base = move_quality(before.choose_moves, held)
        trained = move_quality(player.choose_moves, train)
        diff = paired(mine["losses"], base["losses"])
        began = time.perf_counter()
        for position in held:
            player.choose_move(position.state)
        ms = 1000 * (time.perf_counter() - began) / len(held)
        table.add(
            name,
            start if not args.hidden else f"{start}, hidden {args.hidden}",
            f"{100 * trained['kept']:.1f}",
            f"{100 * mine['kept']:.1f} ± {100 * mine['kept_se']:.1f}",
            f"{mine['seeds_lost']:.2f}",
            f"{100 * diff['kept']:+.1f} ± {100 * diff['kept_se']:.1f}",
            " / ".join(f"{100 * q['kept']:.0f}" for q in mine["by_stage"].values()),
            f"{ms:.3f}",
        )
        print(f"{name}: fitted in {fitted:.0f} s; shipped keeps {100 * base['kept']:.1f}%")
    print(table.markdown())


if __name__ == "__main__":
    main()
