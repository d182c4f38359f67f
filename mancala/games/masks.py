"""The legal-move mask of any game of the protocol (`mancala.games`), for networks and
environments: one row a state, one column an action id.

>>> from mancala.games import new_game
>>> start = new_game("kalah", houses=3, seeds=1)
>>> legal_mask([start, start.play(0)]).astype(int).tolist()
[[1, 1, 1], [1, 1, 1]]
>>> legal_mask([start.play(2)]).astype(int).tolist()   # house 2 is empty now
[[1, 1, 0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def legal_mask(states: Sequence[Any]) -> np.ndarray:
    """bool (N, num_actions): the moves each state's mover may play (none when it is over).
    The states are of one game with one set of rule options."""
    mask = np.zeros((len(states), states[0].num_actions), dtype=bool)
    for row, state in enumerate(states):
        mask[row, state.legal_moves()] = True
    return mask
