"""The policy of az's Tak guide (`mancala.games.tak.guide`) fitted to the alpha-beta's
values of every legal move.

Positions are drawn from recorded games as for the evaluation's fit
(`evaluation_fit.positions`). Each is labelled by the alpha-beta at `depth` plies with
the board's evaluation, every move searched exactly (`search.move_values(exact=True)`),
and each move's row is the counted features of the position it leads to, seen by the
other player (`evaluate.terms`, counted by the compiled evaluation: `_after_terms`). The
policy's logit of a move is minus its row times the policy weights; they are fitted by
cross-entropy against the softmax of the moves' values at `temperature` (flats). Moves
that win at once or leave the other player a road in one have no row: the search knows
them exactly, and they are left out of the fit. Labels are saved in chunks as they are
made (`Labels`), so that a stopped labelling goes on; each fourth game's positions are
held out and judge the fit (the cross-entropy, and how often the policy's favourite is
the search's best move).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from tqdm import tqdm

from mancala.core.atomic import atomic_path
from mancala.core.jit import njit
from mancala.games.tak.evaluate import WEIGHT_NAMES
from mancala.games.tak.fast import play, result, to_arrays, unplay
from mancala.games.tak.search import move_values, new_table, value
from mancala.learn.evaluation_fit import HELD_OUT

CHUNK = 250  # positions labelled and saved at once
CLIP = 30.0  # flats: a move's value is cut to this (a road found is as bad as a big loss)


@dataclass
class Labelled:
    """Every regular move of the labelled positions: its row (`terms` of the position it
    leads to), its search value, the position it belongs to (0, 1, ...) and that
    position's game."""

    rows: np.ndarray
    values: np.ndarray
    position: np.ndarray
    games: np.ndarray

    @classmethod
    def joined(cls, parts: list[Labelled]) -> Labelled:
        offsets = np.cumsum([0] + [p.position.max() + 1 if len(p.position) else 0 for p in parts])
        return cls(
            np.concatenate([p.rows for p in parts]).reshape(-1, len(WEIGHT_NAMES)),
            np.concatenate([p.values for p in parts]),
            np.concatenate([p.position + o for p, o in zip(parts, offsets, strict=False)]),
            np.concatenate([p.games for p in parts]),
        )

    def where(self, keep: np.ndarray) -> Labelled:
        """The positions of `keep` (a flag a move), numbered again from 0."""
        _, position = np.unique(self.position[keep], return_inverse=True)
        return Labelled(self.rows[keep], self.values[keep], position, self.games[keep])

    def held_out(self) -> np.ndarray:
        return self.games % HELD_OUT == 0


class _Gathered:
    """The rows and values of labelled positions as they are made."""

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

    def labelled(self) -> Labelled:
        return Labelled(
            np.array(self.rows, np.float64).reshape(-1, len(WEIGHT_NAMES)),
            np.array(self.values, np.float64),
            np.array(self.position, np.int64),
            np.array(self.games, np.int64),
        )


def label(
    drawn: list[tuple[int, Any]],
    weights: np.ndarray,
    depth: int,
    labelled: Callable[[], Any] = lambda: None,
) -> Labelled:
    """The exact search values of every move of the `drawn` (game, position) pairs at
    `depth` plies by the evaluation's `weights`, with their rows; a position with fewer
    than two regular moves is left out. `labelled()` is told of each position done."""
    table = new_table(18)
    gathered = _Gathered()
    for game, state in drawn:
        found = move_values(state, depth=depth, exact=True, table=table, weights=weights)[0]
        labelled()
        moves = np.array(sorted(found), np.int64)
        values = np.clip([found[int(move)] for move in moves], -CLIP, CLIP)
        gathered.add(game, state, moves, values)
    return gathered.labelled()


def self_play_label(
    starts: list[tuple[int, Any]],
    player: Any,
    seed: int,
    played: Callable[[], Any] = lambda: None,
) -> Labelled:
    """The improved policies of `player`'s Gumbel searches (`learn.az.gumbel_game`) in
    games against itself from the (game, position) pairs `starts`: each move's value is
    the log of its share, so that the softmax of the values at temperature 1 is the
    improved policy over the position's regular moves. `played()` is told of each game."""
    from mancala.learn.az import gumbel_game

    gathered = _Gathered()
    for game, start in starts:
        record = gumbel_game(player, start, seed + game)
        state = start
        for move, policy in zip(record["moves"], record["policy"], strict=True):
            moves = np.array(state.legal_moves(), np.int64)  # the record's order
            with np.errstate(divide="ignore"):
                gathered.add(game, state, moves, np.log(policy))
            state = state.play(move)
        played()
    return gathered.labelled()


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


class Labels:
    """The labels of one fit's positions, saved in a folder a chunk at a time."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, chunk: int) -> Path:
        return self.folder / f"chunk-{chunk:04d}.npz"

    def make(
        self,
        jobs: list[tuple[int, Any]],
        label_part: Callable[[list[tuple[int, Any]], Callable[[], Any]], Labelled],
        desc: str,
        unit: str = "position",
        chunk_size: int = CHUNK,
    ) -> Labelled:
        """The labels of `jobs` by `label_part(some jobs, one done)`, those of chunks saved
        before read back (a progress bar in `unit`s)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        parts = []
        with tqdm(total=len(jobs), desc=desc, unit=unit, file=sys.stderr) as bar:
            for chunk, start in enumerate(range(0, len(jobs), chunk_size)):
                path = self.path(chunk)
                if path.is_file():
                    with np.load(path) as saved:
                        part = Labelled(
                            *(saved[k] for k in ("rows", "values", "position", "games"))
                        )
                    bar.update(min(chunk_size, len(jobs) - start))
                else:
                    part = label_part(jobs[start : start + chunk_size], bar.update)
                    with atomic_path(path) as temporary, temporary.open("wb") as out:
                        np.savez(out, **vars(part))
                parts.append(part)
        return Labelled.joined(parts)


def _by_position(values: np.ndarray, position: np.ndarray, reduce: np.ufunc, start: float):
    """`reduce` of `values` over each position's moves (one entry a position)."""
    out = np.full(position.max() + 1, start)
    reduce.at(out, position, values)
    return out


def _softmax(values: np.ndarray, position: np.ndarray) -> np.ndarray:
    """The softmax of `values` over each position's moves."""
    odds = np.exp(values - _by_position(values, position, np.maximum, -np.inf)[position])
    return odds / _by_position(odds, position, np.add, 0.0)[position]


def _loss(weights, data: Labelled, targets: np.ndarray, ridge: float):
    """The mean cross-entropy of the policy of `weights` against `targets` (and its
    gradient), with a ridge penalty."""
    count = data.position.max() + 1
    policy = _softmax(-data.rows @ weights, data.position)
    loss = -np.sum(targets * np.log(np.maximum(policy, 1e-300))) / count
    gradient = -data.rows.T @ (policy - targets) / count
    return loss + ridge * weights @ weights, gradient + 2 * ridge * weights


def targets(data: Labelled, temperature: float) -> np.ndarray:
    """The softmax of each position's move values at `temperature`."""
    return _softmax(data.values / temperature, data.position)


def judge(data: Labelled, weights: np.ndarray, temperature: float) -> tuple[float, float]:
    """(the cross-entropy of the policy of `weights` on `data`, the share of positions
    whose favourite move by it is a best move of the search)."""
    loss = _loss(weights, data, targets(data, temperature), 0.0)[0]
    logits, position = -data.rows @ weights, data.position
    chosen = logits == _by_position(logits, position, np.maximum, -np.inf)[position]
    best = data.values == _by_position(data.values, position, np.maximum, -np.inf)[position]
    hits = _by_position(chosen & best, position, np.logical_or, False)
    return float(loss), float(hits.mean())


def sharpest(data: Labelled, evaluation: np.ndarray, temperature: float) -> float:
    """The factor of the evaluation's weights whose policy fits the positions of `data`
    not held out best: the policy a fit starts from, and is judged against."""
    train = data.where(~data.held_out())
    goal = targets(train, temperature)
    found = minimize_scalar(
        lambda factor: _loss(factor * evaluation, train, goal, 0.0)[0], bounds=(0.0, 100.0)
    )
    return float(found.x)


def fit(data: Labelled, start: np.ndarray, temperature: float, ridge: float) -> np.ndarray:
    """Policy weights fitted to the positions of `data` not held out, from `start`."""
    train = data.where(~data.held_out())
    goal = targets(train, temperature)
    found = minimize(
        _loss, start, args=(train, goal, ridge), jac=True, method="L-BFGS-B",
        options={"maxiter": 1000},
    )  # fmt: skip
    return found.x
