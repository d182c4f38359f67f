"""The training examples of a sowing game (Kalah, Sungka): its `examples` trait
(`mancala.games.example_builders` says what the module offers).

A row is one position from its mover's side (`mover_views`) with the seeds each legal
move gains from there (its value less the current store difference) and a mask of the
legal moves; a record keeps a position's values, visits and policy one number a house
(null or 0 where illegal). Values are final margins in seeds, and so are their targets'
(`margin_value`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from mancala.games.examples import Examples
from mancala.games.masks import legal_mask
from mancala.games.replay import positions
from mancala.games.sowing import engine
from mancala.games.sowing.margin_value import margin_value
from mancala.games.sowing.view import mover_views

MOVES_A_ROW = 1  # a row holds one board: its houses' values together
DENSE_ROWS = True  # a record's row of a position: one number a house (an action id)


def record_examples(
    start: Any,
    moves: Sequence[int],
    values: list,
    left_out: Collection = frozenset(),
    exact: Any = None,
) -> Examples | None:
    """The examples of the positions of a game played from `start`, `values` a row of
    the values of every house a position (None where illegal): int16 boards, float32
    gains, a bool mask. A position whose row is None was not labelled and is left out, as
    are those in `left_out` and, where `exact` is given, those it does not flag (its list
    of a flag a position; anything else flags none). None when no position is left;
    ValueError when the values do not fit the game (wrong length, illegal moves)."""
    states = positions(start, moves)[:-1]
    if not isinstance(values, list) or len(values) != len(states):
        raise ValueError("values do not match the moves")
    if not states:
        return None
    rel = mover_views(states)
    h = start.houses
    labelled = np.array([row is not None for row in values], bool)  # None: unlabelled
    try:
        v = np.array(
            [[np.nan if x is None else x for x in row or [None] * h] for row in values],
            np.float64,
        )
    except (TypeError, ValueError):
        raise ValueError("values are not lists of numbers") from None
    if v.shape != (len(states), h):
        raise ValueError("values are not one number a house")
    mask = ~np.isnan(v)
    if not (mask == legal_mask(states))[labelled].all():
        raise ValueError("values given for illegal moves, or missing for legal ones")
    gains = np.where(mask, v - (rel[:, h] - rel[:, 2 * h + 1])[:, None], 0.0)
    kept = np.array([state not in left_out for state in states], bool) & labelled
    if exact is not None:
        kept &= (
            np.array(exact, bool) if isinstance(exact, list) and len(exact) == len(kept) else False
        )
    if not kept.any():
        return None
    return Examples(rel[kept].astype(np.int16), gains[kept].astype(np.float32), mask[kept])


def search_values(q: np.ndarray, value_scale: float, score_weight: float) -> np.ndarray:
    """The value targets of a search's values `q` of positions (final margins in seeds):
    `margin_value` on the scale `value_scale` with the score utility's `score_weight`."""
    return margin_value(q, value_scale, score_weight)


def outcome_values(
    final: Any, movers: np.ndarray, value_scale: float, score_weight: float
) -> np.ndarray:
    """The value targets of positions whose movers are `movers` in the game ended at
    `final`: its final margin for each mover (houses counted as their owner's), as
    `search_values`."""
    margin0 = float(engine.score_diff(np.array(final.board, dtype=np.int64), final.houses))
    return search_values(np.where(movers == 0, margin0, -margin0), value_scale, score_weight)
