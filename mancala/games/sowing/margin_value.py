"""The value of a final margin m (seeds, for the player to move) in a sowing game: what a
policy-value network learns, and what its search reads of an exact margin.

    value = (1 - w) * tanh(m / scale) + w * tanh(m / SCORE_SCALE)

The first term, at the shipped scale of 2 seeds, is nearly the chance of winning: the
search spends its simulations telling a win from a loss. But it is flat once a game is
decided, so a move that throws away seeds of a won position looks as good as the best.
The second, weighted by the network's score weight w (0 for files that do not name one),
is a score utility that still prefers the better margin there, as KataGo adds a score
utility to its win value. Both terms rise with m, so the value is a margin's one to one.
"""

from __future__ import annotations

import math

import numpy as np

from mancala.core.jit import njit

SCORE_SCALE = 24.0  # seeds: about the most a position of Kalah(6,4) still swings


@njit(cache=True, nogil=True)
def margin_value(margin, scale, weight):
    """The value (-1..1) of the final margin `margin` (a number or an array)."""
    return (1.0 - weight) * np.tanh(margin / scale) + weight * np.tanh(margin / SCORE_SCALE)


def margin_of(value: float, scale: float, weight: float, most: float) -> float:
    """The margin whose value is `value` (cut to ±`most` first): the inverse of
    `margin_value`, by bisection where the score utility makes it no closed form."""
    value = max(-most, min(most, value))
    if not weight:
        return scale * math.atanh(value)
    low, high = -1e4, 1e4  # margin_value is ±1 to within 1e-9 beyond these
    for _ in range(60):
        middle = (low + high) / 2
        if margin_value(middle, scale, weight) < value:
            low = middle
        else:
            high = middle
    return (low + high) / 2
