"""Gumbel AlphaZero's policy target with sigma's two bounds, on Kalah(6,4)'s held-out set
(docs/az.md, "Sigma's bounds").

    python experiments/gumbel_sigma.py --simulations 64 200 800

For each held-out position, one Gumbel search (az's, without the solver's help, as
self-play runs it: `AZ.gumbel_root`) of the shipped network, then its improved policy
with sigma rescaling the completed values by their own least and most (the lab's, and
mctx's default) and by the value's fixed range -1..1. Of each target: the share of its
weight on moves that keep the exact value, whether its favourite keeps it, and the seeds
it gives away in expectation; the network's own prior beside them; then fixed minus
min-max, paired position by position, the standard error clustered by position.
"""

from __future__ import annotations

import argparse

import numpy as np

from mancala.ai.az import AZ
from mancala.ai.gumbel import FIXED, MIN_MAX, improved_policy, mixed_value
from mancala.arena.solved_set import HELD_OUT, load, mean_se, set_file
from mancala.core.report import Table
from mancala.game_state import GameState
from mancala.nn_lib.policy_value import PolicyValue


def measures(policy: np.ndarray, position) -> tuple[float, float, float]:
    """(weight on value-keeping moves, 1 if the favourite keeps the value, expected loss)."""
    moves = list(position.values)
    weights = policy[moves] / policy[moves].sum()
    losses = np.array([position.loss(move) for move in moves], float)
    keeping = float(weights[losses == 0].sum())
    return keeping, float(losses[int(np.argmax(weights))] == 0), float(weights @ losses)


def spread(value, priors, visits, means, legal) -> float:
    """The most minus the least completed value of the legal moves."""
    mixed = mixed_value(float(value), priors, visits.astype(np.float64), means, legal)
    completed = np.where(visits > 0, means, mixed)[legal]
    return float(completed.max() - completed.min())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--simulations", type=int, nargs="+", default=[64, 200, 800])
    parser.add_argument("--positions", type=int, default=2000, help="the held-out set's first N")
    args = parser.parse_args(argv)
    _, held = load(set_file(GameState.new(), HELD_OUT))
    held = held[: args.positions]
    groups = [position.key for position in held]
    net = PolicyValue("kalah").load()
    table = Table(["simulations", "target", "weight on keeping moves %", "favourite keeps %",
                   "seeds lost (expected)"])  # fmt: skip
    for simulations in args.simulations:
        az = AZ(0, simulations=simulations, net=net, endgame=False, prove=False)
        rows: dict[str, list[tuple[float, float, float]]] = {
            "prior": [],
            "min-max": [],
            "fixed": [],
        }
        spreads = []  # of the completed values of a position's moves (two or more)
        for i, position in enumerate(held):
            _, root = az.gumbel_root(position.state, np.random.default_rng(i), simulations)
            if root[4].sum() > 1:
                spreads.append(spread(*root))
            rows["prior"].append(measures(root[1], position))
            rows["min-max"].append(measures(improved_policy(*root, bounds=MIN_MAX), position))
            rows["fixed"].append(measures(improved_policy(*root, bounds=FIXED), position))
        for name, values in rows.items():
            cells = [mean_se([v[k] for v in values], groups) for k in range(3)]
            table.add(
                simulations,
                name,
                f"{100 * cells[0][0]:.1f} ± {100 * cells[0][1]:.1f}",
                f"{100 * cells[1][0]:.1f} ± {100 * cells[1][1]:.1f}",
                f"{cells[2][0]:.3f} ± {cells[2][1]:.3f}",
            )
        differences = [
            mean_se([f[k] - m[k] for f, m in zip(rows["fixed"], rows["min-max"], strict=True)],
                    groups)
            for k in range(3)
        ]  # fmt: skip
        table.add(
            simulations,
            "fixed - min-max",
            f"{100 * differences[0][0]:+.1f} ± {100 * differences[0][1]:.1f}",
            f"{100 * differences[1][0]:+.1f} ± {100 * differences[1][1]:.1f}",
            f"{differences[2][0]:+.3f} ± {differences[2][1]:.3f}",
        )
        low, middle, high = np.percentile(spreads, [25, 50, 75])
        print(
            f"{simulations} simulations: the completed values of a position's moves span "
            f"{middle:.2f} (quartiles {low:.2f} and {high:.2f}) of the value's range of 2",
            flush=True,
        )
    print(table.markdown())


if __name__ == "__main__":
    main()
