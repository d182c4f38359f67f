"""How well a network has learned its teacher's lesson, and a fit whose rate settles."""

from __future__ import annotations

import numpy as np

from mancala.nn_lib.base import Network
from mancala.nn_lib.choice import masked_argmax

SLICE = 50_000  # positions valued at once


def agreement(net: Network, rel: np.ndarray, gains: np.ndarray, mask: np.ndarray) -> float:
    """% of positions where the network's move is one of the teacher's best moves."""
    values = [
        net.board_values(rel[lo : lo + SLICE], mask[lo : lo + SLICE])
        for lo in range(0, len(rel), SLICE)
    ]
    chosen = masked_argmax(np.concatenate(values), mask)
    best = np.where(mask, gains, -np.inf).max(axis=1)
    return 100.0 * float(np.mean(gains[np.arange(len(rel)), chosen] >= best))


SLICES = 10  # parts of a settling fit's pass, each at its own rate
LAST_SHARE = 0.1  # a settling fit's last rate, a share of its first


def settling_rate(rate: float, done: float) -> float:
    """The rate of a settling fit `done` (0..1) of the way through: falling linearly from
    `rate` to LAST_SHARE of it.

    >>> settling_rate(1e-3, 0.0), round(settling_rate(1e-3, 1.0), 6)
    (0.001, 0.0001)
    """
    return rate * (1 - (1 - LAST_SHARE) * done)


def fit_settling(
    net: Network,
    rel: np.ndarray,
    gains: np.ndarray,
    mask: np.ndarray,
    rates: tuple[float, float],
    batch_size: int = 256,
    average: bool = False,
) -> float:
    """One pass over the examples (shuffled already) in SLICES parts, Adam's rate moving
    from `rates[0]` to `rates[1]` part by part; the last loss. A refit of weights that
    already play well ends on small steps, so the weights kept are settled ones, not
    those of a last large step (which can lose what the earlier data taught). With
    `average`, the weights kept are the mean of those after each part (stochastic weight
    averaging, Izmailov et al., 2018: a flatter optimum, which generalises better)."""
    bounds = np.linspace(0, len(rel), SLICES + 1).astype(int)
    loss, total, parts = 0.0, None, 0
    for k in range(SLICES):
        lo, hi = bounds[k], bounds[k + 1]
        if hi > lo:
            rate = rates[0] + (rates[1] - rates[0]) * k / max(1, SLICES - 1)
            loss = net.fit(
                rel[lo:hi], gains[lo:hi], mask[lo:hi], batch_size=batch_size, learning_rate=rate
            )
            if average:
                weights = net.model.get_weights()
                total = weights if total is None else [t + w for t, w in zip(total, weights)]
                parts += 1
    if total is not None:
        net.model.set_weights([t / parts for t in total])
    return loss
