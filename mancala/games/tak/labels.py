"""Tak's examples for the linear fits of its evaluation and its guide
(`mancala.learn.linear_fit`, whose `MoveRows` these arrays are): positions drawn from
recorded games, labelled by the alpha-beta. A row is how many times each weight counts
(`evaluate.terms`): the evaluation's are the positions' own; the guide's those of the
position each regular move leads to, seen by the other player (a move that wins at once
or leaves the other player a road in one has none: the search knows it exactly).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from mancala.core.jit import njit
from mancala.games import new_game
from mancala.games.tak.evaluate import FORCED, W_GROUP, W_TEMPO, WEIGHT_NAMES, terms
from mancala.games.tak.fast import play, result, to_arrays, unplay
from mancala.games.tak.search import move_values, new_table, value
from mancala.games.tak.state import TakState

Arrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # rows, values, position, games
OPENING_PLIES = 6  # plies of each game left out: the records' random openings and after
FIXED = tuple(range(W_GROUP, W_GROUP + 3))  # groups spanning up to two ranks: worth nothing
ALWAYS = (W_TEMPO,)  # counted once in every position: fitted though its count never varies
CLIP = 30.0  # flats: a move's value is cut to this (a road found is as bad as a big loss)


def positions(records: Iterable[dict], size: int, count: int, seed: int) -> list[tuple[int, Any]]:
    """Up to `count` positions of the Tak games of `size` among the game `records`, drawn
    at random (`seed`): (the game's index, the position); each one after the opening's
    random plies whose game goes on and whose player to move has no road in one."""
    found = []
    for index, record in enumerate(records):
        if record.get("variant") != TakState.game or record["options"].get("size") != size:
            continue
        state = new_game(TakState.game, **record["options"])
        for ply, move in enumerate(record["moves"]):
            if ply >= OPENING_PLIES and state.outcome is None and terms(state) is not None:
                found.append((index, state))
            state = state.play(move)
    random.Random(seed).shuffle(found)
    return found[:count]


def label_positions(
    drawn: list[tuple[int, Any]], weights: np.ndarray, depth: int, done: Callable = lambda: None
) -> Arrays:
    """The evaluation's examples of the `drawn` (game, position) pairs: each position's
    counts, valued by the search's best move at `depth` plies by `weights`, those that
    found a road left out. `done()` is told of each position searched."""
    table = new_table(18)
    rows, values, games = [], [], []
    for game, state in drawn:
        best = max(move_values(state, depth=depth, table=table, weights=weights)[0].values())
        done()
        if abs(best) < FORCED / 2:  # neither a road found nor one in one at the horizon
            rows.append(terms(state))
            values.append(best)
            games.append(game)
    count = len(values)
    rows_ = np.array(rows, np.float64).reshape(count, len(WEIGHT_NAMES))
    return rows_, np.array(values, np.float64), np.arange(count), np.array(games, np.int64)


def label_moves(
    drawn: list[tuple[int, Any]], weights: np.ndarray, depth: int, done: Callable = lambda: None
) -> Arrays:
    """The guide's examples of the `drawn` (game, position) pairs: every regular move,
    valued exactly by the search at `depth` plies by the evaluation's `weights` (cut to
    CLIP). `done()` is told of each position searched."""
    table = new_table(18)
    rows = Rows()
    for game, state in drawn:
        found = move_values(state, depth=depth, exact=True, table=table, weights=weights)[0]
        done()
        moves = np.array(sorted(found), np.int64)
        rows.add(game, state, moves, np.clip([found[int(move)] for move in moves], -CLIP, CLIP))
    return rows.arrays()


class Rows:
    """The examples of positions' moves as they are made."""

    def __init__(self) -> None:
        self.rows, self.values, self.position, self.games = [], [], [], []
        self.count = 0
        self.basis = np.eye(len(WEIGHT_NAMES))  # one weight alone a row: `_after_terms`

    def add(self, game: int, state: Any, moves: np.ndarray, values: np.ndarray) -> None:
        """A position of `game`: the `values` of its `moves` (action ids; -inf: no label),
        those of its regular moves kept when it has at least two."""
        counted = np.zeros((len(moves), len(WEIGHT_NAMES)))
        regular = np.zeros(len(moves), np.bool_)
        _after_terms(*to_arrays(state), moves, self.basis, counted, regular)
        regular &= np.isfinite(values)
        if regular.sum() < 2:
            return
        self.rows.extend(counted[regular])
        self.values.extend(values[regular])
        self.position.extend([self.count] * int(regular.sum()))
        self.games.extend([game] * int(regular.sum()))
        self.count += 1

    def arrays(self) -> Arrays:
        return (
            np.array(self.rows, np.float64).reshape(-1, len(WEIGHT_NAMES)),
            np.array(self.values, np.float64),
            np.array(self.position, np.int64),
            np.array(self.games, np.int64),
        )


@njit(cache=True, nogil=True)
def _after_terms(meta, colours, moves, basis, rows, regular):
    """For each move, whether the position it leads to is regular (the game goes on and
    its player to move has no road in one), and then its `evaluate.terms` into its row:
    the value is linear in the weights, so each count is the value by one weight alone."""
    nothing = np.zeros(basis.shape[0])
    for i in range(moves.shape[0]):
        before = play(meta, colours, moves[i])
        regular[i] = result(meta, colours) < 0 and value(meta, colours, nothing) == 0.0
        if regular[i]:
            for k in range(basis.shape[0]):
                rows[i, k] = value(meta, colours, basis[k])
        unplay(meta, colours, moves[i], before)
