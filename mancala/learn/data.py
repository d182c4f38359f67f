"""What the networks learn from: recorded games annotated by a search teacher
(`mancala.learn.teacher`).

Each game builds the examples of its records (its `examples` trait,
`mancala.games.example_builders`): on Kalah and Sungka (position from the mover's side,
seeds gained by each legal move from here = value - current store difference), on Tak (a
few moves of a position, each the position after it as planes from the mover's side, their
values for the mover, a mask of those present). `PositionReader` streams them out of JSONL
files in chunks of bounded size; `PositionStore` keeps a bounded, uniform sample of them in
memory for the training loops that refit after every batch of games.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any
from zipfile import BadZipFile

import numpy as np

from mancala.arena.records import GameLog, replay, start_state
from mancala.core.atomic import atomic_path
from mancala.core.paths import DATA_DIR, PACKAGE_DIR, cache_dir
from mancala.games import DEFAULT_GAME, GAMES, example_builders
from mancala.games.examples import Examples
from mancala.games.masks import legal_mask
from mancala.nn_lib.policy_value import dense_rows, features

log = logging.getLogger(__name__)


def moves_a_row(game: str) -> int:
    """How many moves' examples one row of `game`'s examples holds: one board (its houses'
    values together) on the sowing games, a few moves of a position on Tak."""
    return example_builders(game).MOVES_A_ROW


def record_positions(record: dict[str, Any], exact_only: bool = False) -> Examples | None:
    """The training examples of one annotated record, as its game builds them
    (`example_builders`); None when it has no "values" or its game builds none. A
    position whose row of values is None was not labelled (`mancala solve labels
    --up-to`) and is left out, and so are the positions of the solved sets that measure
    the networks (`measured`) and, with `exact_only`, those whose values the record does
    not say are exact (its "exact"; Kalah and Sungka); None when none is left.
    ValueError when the values do not fit the game (wrong length, illegal moves)."""
    values = record.get("values")
    variant = record.get("variant", DEFAULT_GAME)
    if values is None or variant not in GAMES or not GAMES[variant].examples:
        return None
    start = start_state(record)
    exact = (record.get("exact") or []) if exact_only else None
    return example_builders(variant).record_examples(
        start, record["moves"], values, measured(start), exact
    )


MEASURED = ("held-out", "gate")  # the solved sets no fit reads


@cache
def _measured_of(game: str, options: tuple) -> frozenset:
    from mancala.arena.solved_set import shipped_set
    from mancala.games import new_game

    start = new_game(game, **dict(options))
    return frozenset(p.state for kind in MEASURED for p in shipped_set(start, kind))


def measured(start: Any) -> frozenset:
    """The positions of the solved sets that measure the networks of `start`'s rules
    (MEASURED: for Kalah(6,4) the held-out set and the gate's, `mancala.arena.solved_set`),
    which no fit reads; none for rules without such sets. A candidate that had learnt a
    gate position's exact labels would be judged on what it was told."""
    return _measured_of(start.game, tuple(sorted(start.options.items())))


def not_measured(states: list) -> np.ndarray:
    """Which of `states` (positions of one game) are in none of the sets of `measured`."""
    left_out = measured(states[0])
    return np.array([state not in left_out for state in states], bool)


def annotated_states(record: dict[str, Any]) -> list:
    """The positions of an annotated record, one a row of its "values"; ValueError when
    they are not a row a position."""
    states = replay(record)[:-1]
    values = record["values"]
    if not isinstance(values, list) or len(values) != len(states):
        raise ValueError("values do not match the moves")
    return states


class PositionReader:
    """Stream the examples of JSONL files (default training/*.jsonl) in chunks of about
    `chunk` examples (`moves_a_row`), so files larger than memory can be trained on;
    with `exact_only`, of the positions whose values are proved exact alone.

    After a pass: `games` (annotated games read), `unannotated` (valid games without
    values, not used), `skipped` (lines skipped as corrupt or invalid), `teachers` (the
    "teacher" names of the games read, in order of first sight).
    """

    def __init__(
        self,
        paths: Iterable[str | os.PathLike] | None = None,
        chunk: int = 200_000,
        exact_only: bool = False,
    ) -> None:
        self.log = GameLog(paths)
        self.chunk, self.exact_only = chunk, exact_only
        self.games = self.unannotated = self.skipped = 0
        self.teachers: list[str] = []

    def __iter__(self) -> Iterator[Examples]:
        self.games = self.unannotated = self.skipped = 0
        parts: list[Examples] = []
        size = 0
        for path in self.log.files():
            for game, units in self._games(path):
                parts.append(game)
                size += units
                if size >= self.chunk:
                    yield Examples.joined(parts)
                    parts, size = [], 0
        if parts:
            yield Examples.joined(parts)

    def _games(self, path: Path) -> Iterator[tuple[Examples, int]]:
        """The examples of each game of the file `path` and their size (examples times
        `moves_a_row`), counted in the reader's totals: read from the cache where they are
        kept, else built from the records (and kept, for a compressed file)."""
        kept = examples_cache(path, self.exact_only) if path.suffix == ".xz" else None
        try:
            read = FileExamples.load(kept) if kept else None
        except (OSError, ValueError, KeyError, EOFError, BadZipFile):  # none, or damaged
            read = None
        fresh = read is None
        read = read or FileExamples()
        games = read.games() if not fresh else self._built(path, read, keep=kept is not None)
        for game, units in games:
            self.games += 1
            yield game, units
        self.unannotated += read.unannotated
        self.skipped += read.skipped
        self.teachers += [t for t in read.teachers if t not in self.teachers]
        if fresh and kept and read.arrays is not None:
            read.save(kept)

    def _built(self, path: Path, read: FileExamples, keep: bool) -> Iterator[tuple[Examples, int]]:
        """The examples of each game of the records of `path` (`record_positions`), their
        counts in `read`, where they are gathered too with `keep` (while they are
        smaller than KEPT_BYTES)."""
        log_, parts, bad, held = GameLog([path]), [], 0, 0
        for record in log_:
            try:
                arrays = record_positions(record, self.exact_only)
            except ValueError:
                bad += 1
                continue
            if arrays is None:
                read.unannotated += 1
                continue
            teacher = str(record.get("teacher", "an unnamed teacher"))
            if teacher not in read.teachers:
                read.teachers.append(teacher)
            units = len(arrays[0]) * moves_a_row(record.get("variant", DEFAULT_GAME))
            held += sum(column.nbytes for column in arrays)
            if keep and held <= KEPT_BYTES:
                parts.append(arrays)
                read.rows.append(len(arrays[0]))
                read.units.append(units)
            yield arrays, units
        if bad:
            log.warning("%s: skipped %d record(s) whose values do not fit the game", path, bad)
        read.skipped = log_.skipped + bad
        if keep and held <= KEPT_BYTES and parts:
            read.arrays = Examples.joined(parts)


KEPT_BYTES = 1 << 28  # a file's examples are kept in the cache up to this size


@dataclass
class FileExamples:
    """The examples of one record file, game by game (`games()`): their arrays joined,
    each game's examples (`rows`) and size (times `moves_a_row`); what was not used: games
    without values (`unannotated`), lines skipped as corrupt or not fitting the game
    (`skipped`); the teachers of the games used, in order of first sight."""

    arrays: Examples | None = None
    rows: list[int] = field(default_factory=list)
    units: list[int] = field(default_factory=list)
    unannotated: int = 0
    skipped: int = 0
    teachers: list[str] = field(default_factory=list)

    def games(self) -> Iterator[tuple[Examples, int]]:
        bounds = np.cumsum([0, *self.rows])
        for lo, hi, units in zip(bounds[:-1], bounds[1:], self.units):
            yield self.arrays.take(slice(lo, hi)), units  # type: ignore[union-attr]

    def save(self, path: Path) -> None:
        """Keep these examples at `path` (atomically), and no other version of them."""
        path.parent.mkdir(parents=True, exist_ok=True)
        for older in path.parent.glob(f"{path.name.rsplit('-', 1)[0]}-*.npz"):
            older.unlink(missing_ok=True)
        columns = dict(zip(("inputs", "moves", "mask"), self.arrays or ()))
        with atomic_path(path, ".npz") as temporary:
            np.savez_compressed(
                temporary,
                rows=self.rows,
                units=self.units,
                counts=[self.unannotated, self.skipped],
                teachers=self.teachers,
                **columns,
            )

    @classmethod
    def load(cls, path: Path) -> FileExamples:
        with np.load(path) as saved:
            unannotated, skipped = saved["counts"].tolist()
            arrays = Examples(saved["inputs"], saved["moves"], saved["mask"])
            rows, units = saved["rows"].tolist(), saved["units"].tolist()
            return cls(arrays, rows, units, unannotated, skipped, saved["teachers"].tolist())


def examples_cache(path: Path, exact_only: bool) -> Path:
    """Where the examples of the record file `path` are kept: named by the file, whether
    they are the exact positions alone, and a digest of the file's bytes, of the source
    that builds examples and of the solved sets no fit reads (`MEASURED`)."""
    digest = hashlib.sha256(path.read_bytes())
    digest.update(_builders())
    kind = "exact" if exact_only else "all"
    return cache_dir() / "examples" / f"{path.name}-{kind}-{digest.hexdigest()[:16]}.npz"


@cache
def _builders() -> bytes:
    """A digest of the files examples are built by (the games' source, this module, the
    solved sets no fit reads), taken once a process."""
    measured = [p for kind in MEASURED for p in sorted(DATA_DIR.glob(f"*-{kind}.jsonl*"))]
    digest = hashlib.sha256()
    for source in (*sorted((PACKAGE_DIR / "games").rglob("*.py")), Path(__file__), *measured):
        digest.update(source.read_bytes())
    return digest.digest()


class PositionStore:
    """A uniform sample of at most `capacity` of the examples seen (reservoir sampling),
    in memory; grows by `add(records)`. `seen` counts every example offered, `len` those
    kept, so memory stays bounded however many games are recorded. With `exact_only`,
    `add` takes the positions whose values a record says are exact alone."""

    def __init__(self, capacity: int = 2_000_000, seed: int = 0, exact_only: bool = False) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity, self.exact_only = capacity, exact_only
        self.rng = np.random.default_rng(seed)
        self.parts: list[Examples] = []
        self.games = self.seen = self.size = 0
        self._joined: Examples | None = None

    def add(self, records: Iterable[dict[str, Any]]) -> None:
        for record in records:
            arrays = record_positions(record, self.exact_only)
            if arrays is not None:
                self._take(arrays)
                self.games += 1

    def add_chunks(self, chunks: Iterable[Examples], games: int) -> None:
        for chunk in chunks:
            self._take(chunk)
        self.games += games

    def add_reader(self, reader: PositionReader) -> None:
        """Take a reader's examples as they stream (memory holds those kept, not every
        example of the files), and count its games."""
        self.add_chunks(reader, 0)
        self.games += reader.games

    def _take(self, arrays: Examples) -> None:
        room = min(self.capacity - self.size, len(arrays[0]))
        if room:
            self.parts.append(arrays.take(slice(0, room)))
            self.size += room
            self.seen += room
            self._joined = None
        rest = arrays.take(slice(room, None))
        n = len(rest.inputs)
        if not n:
            return
        kept = self.arrays()  # full: each new example replaces a random one with
        count = self.seen + 1 + np.arange(n)  # probability capacity / examples seen
        chosen = self.rng.random(n) < self.capacity / count
        slots = self.rng.integers(0, self.capacity, int(chosen.sum()))
        for column, new in zip(kept, rest):
            column[slots] = new[chosen]
        self.seen += n

    def __len__(self) -> int:
        return self.size

    def arrays(self) -> Examples:
        if self._joined is None:
            self._joined = Examples.joined(self.parts)
            self.parts = [self._joined]
        return self._joined

    def sample(self, size: int, rng: np.random.Generator) -> Examples:
        """`size` examples, shuffled: drawn without replacement when there are more,
        with replacement when there are fewer (so a refit always does the same work); all
        of them, exactly as many, are the store's own, shuffled in place (no copy)."""
        kept = self.arrays()
        rows = len(kept.inputs)
        if rows == size:  # the same permutation of each column: one seed, one length
            seed = int(rng.integers(2**63))
            for column in kept:
                np.random.default_rng(seed).shuffle(column)
            return kept
        pick = rng.permutation(rows)[:size] if rows > size else rng.integers(0, rows, size)
        return kept.take(pick)


def visit_row(state: Any, counts: np.ndarray) -> list[int]:
    """A position's visit counts (one per action id) as a record keeps them: one an action
    id (a house) or one a legal move in increasing action id, as its game says
    (`DENSE_ROWS`: Tak's 3,175 ids would mostly be zeros)."""
    return [int(c) for c in _row(state, counts)]


def policy_row(state: Any, policy: np.ndarray) -> list[float]:
    """A position's policy (one probability per action id) as a record keeps it, in the
    layout of `visit_row`."""
    return [round(float(p), 5) for p in _row(state, policy)]


def _row(state: Any, dense: np.ndarray) -> np.ndarray:
    return dense if example_builders(state.game).DENSE_ROWS else dense[state.legal_moves()]


def visit_targets(
    record: dict[str, Any], value_scale: float, search_value: float = 0.0, score_weight: float = 0.0
) -> Examples | None:
    """Targets (`policy_value.features`, policy, mask, value) from a self-play record's
    `visits` and outcome (a sowing game's margin on the scale `value_scale`, seeds, with the
    score utility's `score_weight`: `margin_value`); None without visits. Where the record
    has a `policy` (a Gumbel search's improved policy a position, null where the search
    was a fast one), only its positions are targets, the policy theirs. With
    `search_value` w and the search's value of each position (`q`, seeds), where the
    record has them, the value target is (1 - w) * the outcome's + w * q's (its game's
    `search_values`: margin_value(q) on the sowing games).
    ValueError when the visits, the policy or the values do not fit."""
    visits = record.get("visits")
    if visits is None:
        return None
    states = replay(record)[:-1]
    if not isinstance(visits, list) or len(visits) != len(states) or not states:
        raise ValueError("visits do not match the moves")
    mask = legal_mask(states)
    try:
        counts = dense_rows(states, visits, mask)
    except (TypeError, ValueError):
        raise ValueError("visits are not counts of legal moves") from None
    if (counts < 0).any() or (counts.sum(1) <= 0).any():
        raise ValueError("visits are not counts of legal moves")
    policy = counts / counts.sum(1, keepdims=True)
    values = outcome_values(record, states, value_scale, score_weight)
    if search_value and "q" in record:
        searched = example_builders(states[0].game).search_values(
            _search_values(record, len(states)), value_scale, score_weight
        )
        values = (1 - search_value) * values + search_value * searched
    if "policy" not in record:
        kept = np.flatnonzero(not_measured(states))
        if not len(kept):
            return None
        return Examples(features([states[k] for k in kept]), policy[kept], mask[kept], values[kept])
    rows = record["policy"]
    if not isinstance(rows, list) or len(rows) != len(states):
        raise ValueError("policy does not match the moves")
    free = not_measured(states)
    kept = [k for k, row in enumerate(rows) if row is not None and free[k]]
    if not kept:
        return None
    try:
        targets = dense_rows([states[k] for k in kept], [rows[k] for k in kept], mask[kept])
    except (TypeError, ValueError):
        raise ValueError("policy is not a distribution over the legal moves") from None
    if (targets < 0).any() or not np.allclose(targets.sum(1), 1.0, atol=1e-3):
        raise ValueError("policy is not a distribution over the legal moves")
    targets /= targets.sum(1, keepdims=True)
    return Examples(features([states[k] for k in kept]), targets, mask[kept], values[kept])


def _search_values(record: dict[str, Any], positions: int) -> np.ndarray:
    """The record's search values of its positions (`q`, seeds)."""
    try:
        values = np.array(record["q"], dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("no search values (q) of the positions") from None
    if values.shape != (positions,) or not np.isfinite(values).all():
        raise ValueError("search values (q) do not match the moves")
    return values


def outcome_values(
    record: dict[str, Any], states: list, value_scale: float, score_weight: float = 0.0
) -> np.ndarray:
    """The value target of each position of a finished game, as its game values an
    outcome (`outcome_values` of `example_builders`: on the sowing games the final margin
    for its mover, squashed as the teacher's are; on Tak the result)."""
    final = replay(record)[-1]
    movers = np.array([state.player for state in states])
    return example_builders(final.game).outcome_values(final, movers, value_scale, score_weight)
