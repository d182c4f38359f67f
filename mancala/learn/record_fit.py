"""A network fitted to recorded games (`mancala fit`), from typed settings (`RecordFit`).

The files are streamed a chunk of positions at a time (`PositionReader`; the only chunk
is kept between epochs), epoch after epoch, by one loop whatever the network; what a
network does with a chunk are its steps: a zoo network's (`ZooSteps`: the chunk
shuffled, its move values fitted, the share of positions where it plays a best move of
the teacher) or the policy-value network's (`PolicyValueSteps`: both heads on the
teacher's targets, as the main job refits it: `learner.PolicyValueLearner`). The network
starts from its weights in the output folder when there are some, else from the shipped
ones (unless `fresh`, or `init`: that file's), and is saved atomically in the output
folder.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from mancala.games import Capability, offers
from mancala.games.examples import Examples
from mancala.learn.data import PositionReader
from mancala.learn.learner import PolicyValueLearner
from mancala.nn_lib.base import LEARNING_RATE, weights_path
from mancala.nn_lib.meta import describe_data
from mancala.nn_lib.policy_value import NAME as AZ_NET
from mancala.nn_lib.policy_value import PolicyValue, weights_file
from mancala.nn_lib.training import agreement, fit_settling, settling_rate
from mancala.nn_lib.zoo import network


@dataclass(frozen=True)
class RecordFit:
    """Which network (`name`, of the game `variant`) is fitted, from which start
    (`init` weights, `fresh` ones, else its own or the shipped), on which files (`paths`,
    none: training/), how (`epochs` passes of `batch_size` batches over chunks of `chunk`
    positions at Adam's `learning_rate`, falling to a tenth with `settle`; the positions
    of exact labels alone with `exact_only`; with `average` as well, the weights kept are
    the mean of the last pass's, `fit_settling`; with `keep_above`, `rehearsal`), saved
    in `models`. `objective`,
    `value_scale` and `score_weight` as `mancala fit` says."""

    name: str
    variant: str
    models: Path
    paths: tuple[Path, ...] = ()
    epochs: int = 5
    batch_size: int = 256
    chunk: int = 500_000
    learning_rate: float = LEARNING_RATE
    settle: bool = False
    average: bool = False
    exact_only: bool = False
    keep_above: int | None = None
    fresh: bool = False
    init: Path | None = None
    objective: str = "policy"
    value_scale: float | None = None
    score_weight: float | None = None
    seed: int = 0

    def check(self) -> None:
        """ValueError naming what is wrong with the settings, before any file is read."""
        for path in self.paths:
            if not path.is_file():
                raise ValueError(f"no such file: {path}")
        if self.init is not None and self.fresh:
            raise ValueError("--fresh and --init name two different starts; give one")
        if self.average and (not self.settle or self.name == AZ_NET):
            raise ValueError(
                "--average keeps the mean of a zoo network's settling fit's last pass: "
                "add --settle (az-net's fit has none)"
            )
        if self.keep_above is not None and (
            self.name == AZ_NET or not offers(self.variant, Capability.SOWING)
        ):
            raise ValueError("--keep-above rehearses a zoo network's values of sowing boards")
        if self.init is not None and not self.init.is_file():
            raise ValueError(f"no weights file {self.init}")
        if self.name != AZ_NET and (self.value_scale is not None or self.score_weight is not None):
            raise ValueError(
                "--value-scale and --score-weight are az-net's; a zoo network learns seeds "
                "as they are"
            )

    def start(self, target: Path, shipped: Path) -> Path | None:
        """The weights file the fit starts from: `init`, else none (its own at `target`,
        or fresh ones), else the `shipped` ones where there are neither."""
        if self.init is None and not self.fresh and not target.is_file() and shipped.is_file():
            return shipped
        return self.init


def started(fit: RecordFit, path: Path, shipped: Path, made: Callable[[Path], Any]) -> Any:
    """The network `made` of a weights file, as the fit starts it (`RecordFit.start`:
    loaded, else fresh) and saved to `path`; a line says which."""
    start = fit.start(path, shipped)
    if start is not None:
        net = made(start).load()
        net.path, said = path, f"weights from {start}"
    else:
        net = made(path)
        loaded = False if fit.fresh else net.load_or_fresh(fit.seed)[1]
        if fit.fresh:
            net.fresh(fit.seed)
        said = f"weights from {path}" if loaded else "fresh weights"
    print(f"{fit.name}: {said}")
    return net


class ZooSteps:
    """A zoo network's part of the fit: each chunk shuffled and fitted (a settling fit's
    rate falling across the epoch), then measured by how often it plays a best move."""

    def __init__(self, fit: RecordFit) -> None:
        def made(file: Path) -> Any:
            net = network(fit.name, file, fit.variant)
            net.objective = net.view.objective or fit.objective
            return net

        shipped = weights_path(fit.name, fit.variant)
        self.net = started(fit, weights_path(fit.name, fit.variant, fit.models), shipped, made)
        self.net.compile(fit.learning_rate)
        self.fit, self.rng = fit, np.random.default_rng(fit.seed)
        self.board = self.net.view.blank().shape[1:]  # the pits of a board of its game

    def step(self, rel: np.ndarray, gains: np.ndarray, mask: np.ndarray, epoch: int) -> float:
        if rel.shape[1:] != self.board:
            raise ValueError(
                f"the files hold positions of another board than {self.net.variant}'s "
                f"({rel.shape[1]} pits, not {self.board[0]}); pick its --variant"
            )
        fit = self.fit
        order = self.rng.permutation(len(rel))
        examples = rel[order], gains[order], mask[order]
        if not fit.settle:
            return self.net.fit(*examples, batch_size=fit.batch_size)
        first, last = (settling_rate(fit.learning_rate, (epoch - k) / fit.epochs) for k in (1, 0))
        average = fit.average and epoch == fit.epochs
        return fit_settling(self.net, *examples, (first, last), fit.batch_size, average)

    def measure(self, rel: np.ndarray, gains: np.ndarray, mask: np.ndarray) -> float:
        return agreement(self.net, rel, gains, mask) * len(rel)

    def said(self, measured: float, positions: int, epoch: int) -> str:
        return f"plays a best move of the teacher in {measured / positions:.1f}% of positions"


class PolicyValueSteps:
    """The policy-value network's part of the fit: both heads on the teacher's targets
    of each chunk, a settling fit's rate falling epoch by epoch."""

    def __init__(self, fit: RecordFit) -> None:
        path, shipped = weights_file(fit.variant, fit.models), weights_file(fit.variant)
        self.net = started(fit, path, shipped, partial(PolicyValue, fit.variant))
        if fit.value_scale is not None:
            self.net.value_scale = fit.value_scale
        if fit.score_weight is not None:
            self.net.score_weight = fit.score_weight
        self.fit = fit

    def rate(self, epoch: int) -> float:
        fit = self.fit
        if not fit.settle:
            return fit.learning_rate
        return settling_rate(fit.learning_rate, (epoch - 1) / max(1, fit.epochs - 1))

    def step(self, rel: np.ndarray, gains: np.ndarray, mask: np.ndarray, epoch: int) -> float:
        learner = PolicyValueLearner(self.net)
        return learner.fit(
            rel, gains, mask, batch_size=self.fit.batch_size, learning_rate=self.rate(epoch)
        )

    def measure(self, rel: np.ndarray, gains: np.ndarray, mask: np.ndarray) -> float:
        return 0.0

    def said(self, measured: float, positions: int, epoch: int) -> str:
        net = self.net
        return (
            f"{positions:,} positions, value scale {net.value_scale:g} seeds, score weight "
            f"{net.score_weight:g}, rate {self.rate(epoch):.2g}"
        )


def rehearsal(net: Any, fit: RecordFit) -> Examples | None:
    """The positions of `fit`'s files with more than `keep_above` seeds in the houses
    (where labels are rarely exact), each with the values `net` gives its moves before
    the fit: learnt beside the labels, they keep what it knew there (learning without
    forgetting, Li and Hoiem, 2016). None where there are none."""
    from mancala.games.sowing.view import houses_of

    parts = []
    for rel, gains, mask in PositionReader(list(fit.paths) or None, chunk=fit.chunk):
        rows = houses_of(rel).sum(axis=1) > fit.keep_above
        if rows.any():
            values = np.where(mask[rows], net.board_values(rel[rows], mask[rows]), 0.0)
            parts.append(Examples(rel[rows], values.astype(gains.dtype), mask[rows]))
    return Examples.joined(parts) if parts else None


def fit_records(fit: RecordFit, say: Callable[[str], None] = print) -> Path:
    """Fit the network `fit` names on its records (`say` gets a line an epoch) and save
    it; the saved file. ValueError when the settings or the files will not do (no
    annotated game, positions of another board)."""
    fit.check()
    steps = PolicyValueSteps(fit) if fit.name == AZ_NET else ZooSteps(fit)
    reader = PositionReader(list(fit.paths) or None, chunk=fit.chunk, exact_only=fit.exact_only)
    kept = None  # the only chunk, when everything fits in one
    rehearsed = rehearsal(steps.net, fit) if fit.keep_above is not None else None
    if rehearsed is not None:
        say(
            f"rehearses {len(rehearsed.inputs):,} positions of more than {fit.keep_above} "
            f"seeds in the houses at the starting weights' values, beside each chunk"
        )
    began = time.perf_counter()
    for epoch in range(1, fit.epochs + 1):
        losses, positions, measured, count = [], 0, 0.0, 0
        for rel, gains, mask in [kept] if kept is not None else reader:
            count, last = count + 1, (rel, gains, mask)
            taught = last if rehearsed is None else Examples.joined([last, rehearsed])
            losses.append(steps.step(*taught, epoch))
            positions += len(rel)
            measured += steps.measure(rel, gains, mask)
        if epoch == 1:
            if not positions:
                raise ValueError(
                    f"no annotated games to learn from ({reader.unannotated} game(s) without "
                    f"move values, {reader.skipped} corrupt line(s) skipped); record some "
                    f"with `mancala train`"
                )
            say(
                f"{reader.games} annotated game(s), {positions} positions; "
                f"{reader.unannotated} game(s) without move values left out; "
                f"{reader.skipped} corrupt or invalid line(s) skipped"
            )
            if count == 1:
                kept = last
        say(
            f"epoch {epoch}/{fit.epochs}: loss {np.mean(losses):.4f}, "
            f"{steps.said(measured, positions, epoch)}, {time.perf_counter() - began:.0f} s"
        )
    data = describe_data(list(fit.paths), reader.games, positions)
    return steps.net.save(teacher=" + ".join(reader.teachers), data=data)
