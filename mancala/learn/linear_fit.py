"""Weights linear in counted features fitted to labelled examples: one learner, two
objectives (Tak's evaluation and its guide's policy: `mancala.learn.tak_fit`).

An example is a row of counts (how many times each weight counts), its value, the position
it belongs to and that position's game (`MoveRows`; a game builds its own, as
`mancala.games.tak.labels` does). Each HELD_OUT-th game's positions are held out and judge
the fit of the others. An objective offers `fit(train, start)` (the weights) and
`loss(data, weights)`: `Squares`, the squared error of the rows times the weights against
the values (one row a position: an evaluation); `CrossEntropy`, the policy over each
position's rows (the softmax of minus the rows times the weights) against the softmax of
their values.
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

HELD_OUT = 4  # every HELD_OUT-th game's positions judge the fit
CHUNK = 250  # jobs labelled and saved at once


@dataclass
class MoveRows:
    """Rows of counted features, their values, the position each belongs to (0, 1, ...)
    and that position's game."""

    rows: np.ndarray
    values: np.ndarray
    position: np.ndarray
    games: np.ndarray

    @classmethod
    def joined(cls, parts: list[MoveRows]) -> MoveRows:
        offsets = np.cumsum([0] + [p.position.max() + 1 if len(p.position) else 0 for p in parts])
        return cls(
            np.concatenate([p.rows for p in parts]),
            np.concatenate([p.values for p in parts]),
            np.concatenate([p.position + o for p, o in zip(parts, offsets, strict=False)]),
            np.concatenate([p.games for p in parts]),
        )

    def where(self, keep: np.ndarray) -> MoveRows:
        """The examples of `keep` (a flag a row), their positions numbered again from 0."""
        _, position = np.unique(self.position[keep], return_inverse=True)
        return MoveRows(self.rows[keep], self.values[keep], position, self.games[keep])

    def split(self) -> tuple[MoveRows, MoveRows]:
        """(the examples a fit reads, those held out)."""
        held = self.games % HELD_OUT == 0
        return self.where(~held), self.where(held)


def chunked(
    folder: Path,
    jobs: list,
    label: Callable[[list, Callable[[], Any]], tuple[np.ndarray, ...]],
    desc: str,
    unit: str = "position",
    size: int = CHUNK,
) -> MoveRows:
    """The examples of `jobs` by `label(some jobs, one done)` (the arrays of `MoveRows`),
    made `size` jobs at a time, each chunk saved in `folder` (`runs.progress`) as it is
    made and those saved before read back (a progress bar in `unit`s)."""
    parts = []
    with tqdm(total=len(jobs), desc=desc, unit=unit, file=sys.stderr) as bar:
        for chunk, start in enumerate(range(0, len(jobs), size)):
            path = folder / f"chunk-{chunk:04d}.npz"
            if path.is_file():
                with np.load(path) as saved:
                    part = MoveRows(*(saved[k] for k in ("rows", "values", "position", "games")))
                bar.update(min(size, len(jobs) - start))
            else:
                part = MoveRows(*label(jobs[start : start + size], bar.update))
                with atomic_path(path) as temporary, temporary.open("wb") as out:
                    np.savez(out, **vars(part))
            parts.append(part)
    return MoveRows.joined(parts)


@dataclass(frozen=True)
class Squares:
    """Least squares, each weight pulled toward the start's by `ridge` and rounded to 1/32;
    a weight whose count never varies stays as it was (but those `always` fitted), as do
    those `fixed`."""

    ridge: float
    fixed: tuple[int, ...] = ()
    always: tuple[int, ...] = ()

    def fit(self, train: MoveRows, start: np.ndarray) -> np.ndarray:
        counts, values = train.rows, train.values
        free = counts.std(axis=0) > 0
        free[list(self.fixed)] = False
        free[list(self.always)] |= counts.shape[0] > 0
        a = counts[:, free]
        b = values - counts[:, ~free] @ start[~free]
        n = max(len(b), 1)
        lhs = a.T @ a / n + self.ridge * np.eye(a.shape[1])
        fitted = np.linalg.solve(lhs, a.T @ b / n + self.ridge * start[free])
        weights = start.copy()
        weights[free] = fitted
        return np.round(weights * 32) / 32 + 0.0  # + 0.0: no weight of -0.0

    def loss(self, data: MoveRows, weights: np.ndarray) -> float:
        return float(np.mean((data.rows @ weights - data.values) ** 2))


@dataclass(frozen=True)
class CrossEntropy:
    """Against the softmax of the values at `temperature`: L-BFGS, with a ridge penalty."""

    temperature: float
    ridge: float = 0.0

    def fit(self, train: MoveRows, start: np.ndarray) -> np.ndarray:
        goal = targets(train, self.temperature)
        found = minimize(
            _loss, start, args=(train, goal, self.ridge), jac=True, method="L-BFGS-B",
            options={"maxiter": 1000},
        )  # fmt: skip
        return found.x

    def loss(self, data: MoveRows, weights: np.ndarray) -> float:
        return float(_loss(weights, data, targets(data, self.temperature), 0.0)[0])


def targets(data: MoveRows, temperature: float) -> np.ndarray:
    """The softmax of each position's values at `temperature`."""
    return _softmax(data.values / temperature, data.position)


def best_first(data: MoveRows, weights: np.ndarray) -> float:
    """The share of positions whose favourite row by the policy of `weights` is a best
    valued one."""
    logits, position = -data.rows @ weights, data.position
    chosen = logits == _by_position(logits, position, np.maximum, -np.inf)[position]
    best = data.values == _by_position(data.values, position, np.maximum, -np.inf)[position]
    return float(_by_position(chosen & best, position, np.logical_or, False).mean())


def sharpest(train: MoveRows, evaluation: np.ndarray, temperature: float) -> float:
    """The factor of the evaluation's weights whose policy fits `train` best: the policy a
    fit starts from, and is judged against."""
    loss = CrossEntropy(temperature).loss
    return float(minimize_scalar(lambda f: loss(train, f * evaluation), bounds=(0.0, 100.0)).x)


def _by_position(values: np.ndarray, position: np.ndarray, reduce: np.ufunc, start: float):
    """`reduce` of `values` over each position's rows (one entry a position)."""
    out = np.full(position.max() + 1, start)
    reduce.at(out, position, values)
    return out


def _softmax(values: np.ndarray, position: np.ndarray) -> np.ndarray:
    """The softmax of `values` over each position's rows."""
    odds = np.exp(values - _by_position(values, position, np.maximum, -np.inf)[position])
    return odds / _by_position(odds, position, np.add, 0.0)[position]


def _loss(weights, data: MoveRows, targets: np.ndarray, ridge: float):
    """The mean cross-entropy of the policy of `weights` against `targets` (and its
    gradient), with a ridge penalty."""
    count = data.position.max() + 1
    policy = _softmax(-data.rows @ weights, data.position)
    loss = -np.sum(targets * np.log(np.maximum(policy, 1e-300))) / count
    gradient = -data.rows.T @ (policy - targets) / count
    return loss + ridge * weights @ weights, gradient + 2 * ridge * weights
