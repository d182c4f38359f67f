"""Input encoders of the networks: positions seen from the mover's side, as numpy arrays.

The sowing encoders take `rel`, a batch of boards turned to the mover's view
(`mancala.games.sowing.view.mover_views`): shape (N, 2H+2) = own houses in sowing order,
own store, the opponent's houses in sowing order, the opponent's store. Counts are
divided by SCALE.

>>> from mancala.game_state import GameState
>>> from mancala.games.sowing.view import mover_views
>>> state = GameState.new().play(0)            # player 1 to move
>>> rel = mover_views([state])
>>> rel.tolist()
[[4, 4, 4, 4, 4, 4, 0, 0, 5, 5, 5, 5, 4, 0]]
>>> pits(rel).shape, houses(rel).shape, one_hot(rel).shape, rows(rel).shape
((1, 14), (1, 12), (1, 194), (1, 6, 2))
>>> rows(rel)[0, :, 1] * SCALE   # the opponent's houses, opposite each own house
array([4., 5., 5., 5., 5., 0.], dtype=float32)

`tactics(rel, rules)` adds what each side's next move would do at once, for the networks
that ask for it (`Network.tactics`):

>>> from mancala.games.sowing.engine import rules_of
>>> x = tactics(rel, rules_of(state)).reshape(4, 6) * [[SCALE], [1], [SCALE], [1]]
>>> x.astype(int).tolist()   # own gains, own extra turns; the opponent's, the same
[[0, 0, 1, 1, 1, 1], [0, 0, 1, 0, 0, 0], [0, 1, 1, 1, 1, 1], [0, 1, 0, 0, 0, 0]]

The planes encoders take Tak planes (`mancala.games.tak.planes`), (N, C, S, S):

>>> x = np.zeros((2, 20, 5, 5), np.float32)
>>> flat(x).shape, spatial(x).shape
((2, 500), (2, 5, 5, 20))
"""

from __future__ import annotations

import numpy as np

from mancala.games.sowing.afterstates import afterstates
from mancala.games.sowing.view import ONE_HOT_BINS, SCALE, houses_of, view_order


def pits(rel: np.ndarray) -> np.ndarray:
    """Houses and stores: (N, 2H+2)."""
    return (rel / SCALE).astype(np.float32)


def houses(rel: np.ndarray) -> np.ndarray:
    """Houses only, no stores: (N, 2H)."""
    return (houses_of(rel) / SCALE).astype(np.float32)


def one_hot(rel: np.ndarray) -> np.ndarray:
    """Each house count one-hot (ONE_HOT_BINS bins, the last 'or more'), then both stores
    scaled: (N, 2H * ONE_HOT_BINS + 2)."""
    h = (rel.shape[1] - 2) // 2
    counts = houses_of(rel)
    hot = np.eye(ONE_HOT_BINS, dtype=np.float32)[np.minimum(counts, ONE_HOT_BINS - 1)]
    stores = rel[:, [h, 2 * h + 1]] / SCALE
    return np.concatenate([hot.reshape(len(rel), -1), stores.astype(np.float32)], axis=1)


def tactics(rel: np.ndarray, rules: tuple[int, bool, bool, int]) -> np.ndarray:
    """Each side's next move at a glance, the mover's houses then the opponent's: what
    playing each house would gain at once in the store difference (captures and the
    end-of-game sweep counted), scaled, then whether its sowing ends in the own store (an
    extra turn while the game goes on); 0, 0 for a house that cannot be played: (N, 4H)."""
    h = (rel.shape[1] - 2) // 2
    rel = np.ascontiguousarray(rel, dtype=np.int64)
    parts = []
    for side in (rel, rel[:, view_order(h)[1]]):  # the mover's view, then the opponent's
        _, gained, same, _ = afterstates(side, side[:, :h] > 0, rules)
        parts += [(gained / SCALE).astype(np.float32), same.astype(np.float32)]
    return np.concatenate(parts, axis=1)


def rows(rel: np.ndarray) -> np.ndarray:
    """The two rows of houses side by side, opposite houses aligned: (N, H, 2).
    Channel 0 is own house i, channel 1 the opponent's house facing it."""
    h = (rel.shape[1] - 2) // 2
    opposite = rel[:, 2 * h : h : -1]  # opponent's houses H-1..0 face own houses 0..H-1
    return (np.stack([rel[:, :h], opposite], axis=2) / SCALE).astype(np.float32)


def flat(planes: np.ndarray) -> np.ndarray:
    """Planes (N, C, S, S) as one vector each, for dense layers: (N, C * S * S)."""
    return planes.reshape(len(planes), -1).astype(np.float32)


def spatial(planes: np.ndarray) -> np.ndarray:
    """Planes (N, C, S, S) channels last, for 2-D convolutions: (N, S, S, C)."""
    return np.ascontiguousarray(planes.transpose(0, 2, 3, 1), dtype=np.float32)
