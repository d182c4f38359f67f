"""The training examples of Tak: its `examples` trait (`mancala.games.example_builders`
says what the module offers).

A row is a few moves of a position, each the position after it as planes from the
mover's side (`planes.afterstate_planes`, on the fast engine), with the moves' values for
the mover and a mask of those present, as the Tak networks value positions after a move
and learn a position's moves together (`mancala.nn_lib.views.TakView`). A record keeps a
position's values, visits and policy one number a legal move, in increasing action id
(a row of its 3,175 ids would be mostly zeros). Values are the evaluator's (flats) or a
result's, never margins: a finished game's positions are valued by its winner.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from mancala.games.examples import Examples
from mancala.games.replay import positions
from mancala.games.tak.actions import num_actions
from mancala.games.tak.fast import is_legal, legal_moves, play, result, to_arrays
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.planes import afterstate_planes, channels

CHILDREN = 16  # examples a position (its best moves and random others)
BEST = 4  # of which the best valued moves
MOVES_A_ROW = CHILDREN
DENSE_ROWS = False  # a record's row of a position: one number a legal move


def record_examples(
    start: Any,
    moves: Sequence[int],
    values: list,
    left_out: Collection = frozenset(),
    exact: Any = None,
) -> Examples | None:
    """The examples of a game played from `start`, `values` a row of the values of every
    legal move a position, a row a position: its BEST best valued moves and random others
    (drawn from the game's moves), CHILDREN in all, each the position after the move as
    planes from the mover's side (float16), with the moves' values and a mask of those
    present; moves that end the game are left out (they are valued exactly in play), and
    positions with none left, or in `left_out`. `exact` is not read: every position's
    values are a search's. None when no position is left. ValueError when the values do
    not fit the game."""
    if not isinstance(values, list) or len(values) != len(moves):
        raise ValueError("values do not match the moves")
    meta, colours = to_arrays(start)
    stones, caps = PIECES[start.size]
    legal = np.empty(num_actions(start.size), np.int64)
    after = np.zeros((CHILDREN, channels(start.size), start.size, start.size), np.float32)
    rng = np.random.default_rng(moves)
    left = [s in left_out for s in positions(start, moves)] if left_out else [False] * len(moves)
    x, gains, counts = [], [], []
    for move, row, skip in zip(moves, values, left):
        if result(meta, colours) >= 0:
            raise ValueError("moves after the end of the game")
        n = legal_moves(meta, colours, legal)
        try:
            v = np.array(row, np.float64)
        except (TypeError, ValueError):
            raise ValueError("values are not lists of numbers") from None
        if v.shape != (n,):
            raise ValueError("values are not one number a legal move")
        ranked = np.argsort(-v, kind="stable")
        chosen = np.array([*ranked[:BEST], *rng.permutation(ranked[BEST:])[: CHILDREN - BEST]])
        live = np.flatnonzero(
            afterstate_planes(meta, colours, legal[chosen], stones, caps, after) < 0
        )
        if len(live) and not skip:
            x.append(after[: len(live)].astype(np.float16))
            gains.append(v[chosen[live]])
            counts.append(len(live))
        if not (isinstance(move, int) and is_legal(meta, colours, move)):
            raise ValueError(f"illegal move {move!r}")
        play(meta, colours, move)
    if not counts:
        return None
    shape = (len(counts), CHILDREN)
    inputs = np.zeros((*shape, *after.shape[1:]), np.float16)
    targets, mask = np.zeros(shape, np.float32), np.zeros(shape, bool)
    for r, count in enumerate(counts):
        inputs[r, :count], targets[r, :count], mask[r, :count] = x[r], gains[r], True
    return Examples(inputs, targets, mask)


def search_values(q: np.ndarray, value_scale: float, score_weight: float) -> np.ndarray:
    """The value targets of a search's values `q` of positions: the values themselves."""
    return q


def outcome_values(
    final: Any, movers: np.ndarray, value_scale: float, score_weight: float
) -> np.ndarray:
    """The value targets of positions whose movers are `movers` in the game ended at
    `final`: 1 for the winner's, -1 for the loser's, 0 in a draw (or a game stopped
    unfinished)."""
    winner = final.winner()
    return np.zeros(len(movers)) if winner is None else np.where(movers == winner, 1.0, -1.0)
