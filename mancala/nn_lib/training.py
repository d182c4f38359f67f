"""How well a network has learned its teacher's lesson."""

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
