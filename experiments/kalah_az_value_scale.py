"""az-net's value scale on Kalah(6,4): the same exact labels learnt with the value
tanh(margin / SCALE) for each scale, measured on the held-out set (docs/az.md, "The
value's scale").

    python experiments/kalah_az_value_scale.py runs/labels/*.jsonl --out /tmp/scales \
        --scales 2 12 --epochs 6 --simulations 1000

For each scale: a fresh az-net (or the shipped one, `--from-shipped`) fitted on the
labelled games (the held-out set's positions left out, as every fit leaves them; the
exact labels alone with `--exact-only`): policy a soft choice of the move values at one
seed, value the best move's margin on the scale, the rate settling to a tenth; saved to
OUT/SCALE/az-net.keras. Then the share of the held-out set where az-net (the policy head
alone) and az-solo:N (its search, without the solver's help) keep the value, seeds lost
a move, and az-solo's difference from the shipped az-net's az-solo:N on the same
positions, paired.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from mancala.ai.az import AZ, AZNet
from mancala.arena.solved_set import HELD_OUT, load, move_quality, paired, set_file
from mancala.core.report import Table
from mancala.game_state import GameState
from mancala.games.examples import Examples
from mancala.learn.data import record_positions
from mancala.learn.labels import labelled
from mancala.nn_lib.policy_value import PolicyValue, teacher_targets
from mancala.nn_lib.training import settling_rate


def examples(files: list[Path], exact_only: bool) -> tuple[np.ndarray, ...]:
    parts = [record_positions(record, exact_only) for record in labelled(files)]
    return Examples.joined([p for p in parts if p is not None])


def quality(player, held) -> dict:
    return move_quality(player.choose_moves, held)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scales", nargs="+", type=float, default=[2.0, 12.0])
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--exact-only", action="store_true", help="leave out searched labels")
    parser.add_argument("--from-shipped", action="store_true", help="refit the shipped az-net")
    args = parser.parse_args(argv)
    _, held = load(set_file(GameState.new(), HELD_OUT))
    rel, gains, mask = examples(args.files, args.exact_only)
    print(f"{len(rel):,} training positions; {len(held)} held-out positions", flush=True)
    shipped = PolicyValue("kalah").load()
    base = quality(
        AZ(0, simulations=args.simulations, net=shipped, endgame=False, prove=False), held
    )
    n = args.simulations
    table = Table(
        [
            "az-net",
            "az-net keeps %",
            "seeds lost",
            f"az-solo:{n} keeps %",
            "seeds lost",
            "vs shipped",
        ]
    )
    alone = quality(AZNet(net=shipped), held)
    table.add(
        f"shipped (scale {shipped.value_scale:g})",
        f"{100 * alone['kept']:.1f}",
        f"{alone['seeds_lost']:.2f}",
        f"{100 * base['kept']:.1f} ± {100 * base['kept_se']:.1f}",
        f"{base['seeds_lost']:.2f}",
        "",
    )
    for scale in args.scales:
        path = args.out / f"{scale:g}" / "az-net.keras"
        if args.from_shipped:
            net = PolicyValue("kalah").load()
        else:
            net = PolicyValue("kalah", path).fresh(args.seed)
        net.value_scale = scale
        began = time.perf_counter()
        targets = teacher_targets(rel, gains, mask, scale)
        for epoch in range(args.epochs):  # Adam's rate settling over the fit
            rate = settling_rate(args.learning_rate, epoch / max(1, args.epochs - 1))
            if getattr(net.model, "compiled", False):
                net.model.optimizer.learning_rate.assign(rate)
            net.fit(targets, epochs=1, learning_rate=rate)
        net.save(path, teacher="exact labels", data=", ".join(str(f) for f in args.files))
        print(f"scale {scale:g}: fitted in {time.perf_counter() - began:.0f} s", flush=True)
        policy = quality(AZNet(net=net), held)
        searched = quality(AZ(0, simulations=n, net=net, endgame=False, prove=False), held)
        diff = paired(searched["losses"], base["losses"])
        table.add(
            f"scale {scale:g}",
            f"{100 * policy['kept']:.1f}",
            f"{policy['seeds_lost']:.2f}",
            f"{100 * searched['kept']:.1f} ± {100 * searched['kept_se']:.1f}",
            f"{searched['seeds_lost']:.2f}",
            f"{100 * diff['kept']:+.1f} ± {100 * diff['kept_se']:.1f}",
        )
    print(table.markdown())


if __name__ == "__main__":
    main()
