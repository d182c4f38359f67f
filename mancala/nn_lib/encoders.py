"""Input encoders of the networks: positions seen from the mover's side, as numpy arrays.

Every encoder takes `rel`, a batch of boards turned to the mover's view (see
`mover_boards`): shape (N, 2H+2) = own houses in sowing order, own store, the
opponent's houses in sowing order, the opponent's store. Counts are divided by SCALE.

>>> from mancala.game_state import GameState
>>> state = GameState.new().play(0)            # player 1 to move
>>> rel = mover_boards([state])
>>> rel.tolist()
[[4, 4, 4, 4, 4, 4, 0, 0, 5, 5, 5, 5, 4, 0]]
>>> pits(rel).shape, houses(rel).shape, one_hot(rel).shape, rows(rel).shape
((1, 14), (1, 12), (1, 194), (1, 6, 2))
>>> rows(rel)[0, :, 1] * SCALE   # the opponent's houses, opposite each own house
array([4., 5., 5., 5., 5., 0.], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from mancala.game_state import GameState

SCALE = 8.0  # counts are divided by this (a house holds about 4 seeds)
ONE_HOT_BINS = 16  # one-hot house counts 0..14, and 15 or more


@lru_cache(maxsize=8)
def rotation(houses: int) -> np.ndarray:
    """Index arrays (2, 2H+2): row p lists the absolute pits in player p's view order."""
    n = 2 * houses + 2
    return np.array([np.arange(n), (np.arange(n) + houses + 1) % n])


def mover_boards(states: Sequence[GameState]) -> np.ndarray:
    """The boards of `states` from each mover's side, int64 (N, 2H+2)."""
    if len(states) == 1:  # one position: a plain index, the fast path of a single move
        state = states[0]
        return np.array(state.board, dtype=np.int64)[rotation(state.houses)[state.player]][None]
    boards = np.array([state.board for state in states], dtype=np.int64)
    players = np.array([state.player for state in states], dtype=np.int64)
    return turn_boards(boards, players, states[0].houses)


def turn_boards(boards: np.ndarray, players: np.ndarray, houses: int) -> np.ndarray:
    """Absolute boards (N, 2H+2) turned to the view of `players` (N,)."""
    order = rotation(houses)[players]
    return np.take_along_axis(boards, order, axis=1)


def legal_mask(rel: np.ndarray) -> np.ndarray:
    """Which houses may be played (Kalah: the non-empty own houses), bool (N, H)."""
    h = (rel.shape[1] - 2) // 2
    return rel[:, :h] > 0


def pits(rel: np.ndarray) -> np.ndarray:
    """Houses and stores: (N, 2H+2)."""
    return (rel / SCALE).astype(np.float32)


def houses(rel: np.ndarray) -> np.ndarray:
    """Houses only, no stores: (N, 2H)."""
    h = (rel.shape[1] - 2) // 2
    return (np.concatenate([rel[:, :h], rel[:, h + 1 : 2 * h + 1]], axis=1) / SCALE).astype(
        np.float32
    )


def one_hot(rel: np.ndarray) -> np.ndarray:
    """Each house count one-hot (ONE_HOT_BINS bins, the last 'or more'), then both stores
    scaled: (N, 2H * ONE_HOT_BINS + 2)."""
    h = (rel.shape[1] - 2) // 2
    counts = np.concatenate([rel[:, :h], rel[:, h + 1 : 2 * h + 1]], axis=1)
    hot = np.eye(ONE_HOT_BINS, dtype=np.float32)[np.minimum(counts, ONE_HOT_BINS - 1)]
    stores = rel[:, [h, 2 * h + 1]] / SCALE
    return np.concatenate([hot.reshape(len(rel), -1), stores.astype(np.float32)], axis=1)


def rows(rel: np.ndarray) -> np.ndarray:
    """The two rows of houses side by side, opposite houses aligned: (N, H, 2).
    Channel 0 is own house i, channel 1 the opponent's house facing it."""
    h = (rel.shape[1] - 2) // 2
    opposite = rel[:, 2 * h : h : -1]  # opponent's houses H-1..0 face own houses 0..H-1
    return (np.stack([rel[:, :h], opposite], axis=2) / SCALE).astype(np.float32)
