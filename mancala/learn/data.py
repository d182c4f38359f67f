"""What the networks learn from: recorded games annotated by a search teacher
(`mancala.learn.teacher`).

Training examples of Kalah and Sungka are (position from the mover's side, seeds gained
by each legal move from here = value - current store difference); of Tak (a few moves of
a position, each the position after it as planes from the mover's side, their values for
the mover, a mask of those present: `tak_positions`), as the Tak networks value positions
after a move and learn a position's moves together (`mancala.nn_lib.views.TakView`).
`PositionReader` streams them out of JSONL files in chunks of bounded size;
`PositionStore` keeps a bounded, uniform sample of them in memory for the training loops
that refit after every batch of games.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

import numpy as np

from mancala.arena.records import GameLog, replay, start_state
from mancala.games import DEFAULT_GAME, GAMES, games_with
from mancala.games.masks import legal_mask
from mancala.games.sowing import engine
from mancala.games.sowing.margin_value import margin_value
from mancala.games.sowing.view import mover_views
from mancala.games.tak.actions import num_actions
from mancala.games.tak.fast import is_legal, legal_moves, play, result, to_arrays
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.planes import afterstate_planes, channels
from mancala.nn_lib.policy_value import features

log = logging.getLogger(__name__)
Arrays = tuple[np.ndarray, np.ndarray, np.ndarray]  # inputs (mover's side), gains, mask
SOWN = tuple(games_with("sowing"))  # the games whose records are valued house by house
PLANED = tuple(name for name in GAMES if GAMES[name].planes)  # valued by afterstate planes
TAK_CHILDREN = 16  # Tak: examples a position (its best moves and random others)
TAK_BEST = 4  # of which the best valued moves


def moves_a_row(game: str) -> int:
    """How many moves' examples one row of `game`'s examples holds: a Tak position's
    TAK_CHILDREN moves, or one board (its houses' values together) of the sowing games."""
    return TAK_CHILDREN if game in PLANED else 1


def record_positions(record: dict[str, Any], exact_only: bool = False) -> Arrays | None:
    """The training examples of one annotated record; None when it has no "values" or is
    of another game than Kalah, Sungka and Tak. A position whose row of values is None
    was not labelled (`mancala solve labels --up-to`) and is left out, and so are the
    positions of the solved sets that measure the networks (`not_measured`; None when
    none is left) and, with
    `exact_only`, those whose values the record does not say are exact (its "exact";
    Kalah and Sungka).
    ValueError when the values do not fit the game (wrong length, illegal moves)."""
    values = record.get("values")
    variant = record.get("variant", DEFAULT_GAME)
    if values is not None and variant in PLANED:
        return tak_positions(record)
    if values is None or variant not in SOWN:
        return None
    states = annotated_states(record)
    if not states:
        return None
    rel = mover_views(states)
    h = states[0].houses
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
    kept = not_measured(states) & labelled
    if exact_only:
        exact = record.get("exact")
        kept &= (
            np.array(exact, bool) if isinstance(exact, list) and len(exact) == len(kept) else False
        )
    if not kept.any():
        return None
    return rel[kept].astype(np.int16), gains[kept].astype(np.float32), mask[kept]


MEASURED = ("held-out", "gate")  # the solved sets no fit reads


@cache
def _measured_of(game: str, options: tuple) -> frozenset:
    from mancala.arena.solved_set import shipped_set
    from mancala.games import new_game

    start = new_game(game, **dict(options))
    return frozenset(p.state for kind in MEASURED for p in shipped_set(start, kind))


def not_measured(states: list) -> np.ndarray:
    """Which of `states` (positions of one game) are in none of the solved sets that
    measure the networks of their rules (MEASURED: for Kalah(6,4) the held-out set and
    the gate's, `mancala.arena.solved_set`), which no fit reads: every one, for rules
    without such sets. A candidate that had learnt a gate position's exact labels would
    be judged on what it was told."""
    measured = _measured_of(states[0].game, tuple(sorted(states[0].options.items())))
    return np.array([state not in measured for state in states], bool)


def annotated_states(record: dict[str, Any]) -> list:
    """The positions of an annotated record, one a row of its "values"; ValueError when
    they are not a row a position."""
    states = replay(record)[:-1]
    values = record["values"]
    if not isinstance(values, list) or len(values) != len(states):
        raise ValueError("values do not match the moves")
    return states


def tak_positions(record: dict[str, Any]) -> Arrays | None:
    """The examples of an annotated Tak record, a row a position: its TAK_BEST best valued
    moves and random others (drawn from the record's moves), TAK_CHILDREN in all, each the
    position after the move as planes from the mover's side (float16), with the moves'
    values and a mask of those present; moves that end the game are left out (they are
    valued exactly in play), and positions with none left. None when no position is left.
    ValueError when the values do not fit the game. Played on the fast engine
    (`planes.afterstate_planes`)."""
    moves, values = record["moves"], record["values"]
    if not isinstance(values, list) or len(values) != len(moves):
        raise ValueError("values do not match the moves")
    start = start_state(record)
    meta, colours = to_arrays(start)
    stones, caps = PIECES[start.size]
    legal = np.empty(num_actions(start.size), np.int64)
    after = np.zeros((TAK_CHILDREN, channels(start.size), start.size, start.size), np.float32)
    rng = np.random.default_rng(moves)
    x, gains, counts = [], [], []
    for move, row in zip(moves, values):
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
        chosen = np.array(
            [*ranked[:TAK_BEST], *rng.permutation(ranked[TAK_BEST:])[: TAK_CHILDREN - TAK_BEST]]
        )
        live = np.flatnonzero(
            afterstate_planes(meta, colours, legal[chosen], stones, caps, after) < 0
        )
        if len(live):
            x.append(after[: len(live)].astype(np.float16))
            gains.append(v[chosen[live]])
            counts.append(len(live))
        if not (isinstance(move, int) and is_legal(meta, colours, move)):
            raise ValueError(f"illegal move {move!r}")
        play(meta, colours, move)
    if not counts:
        return None
    shape = (len(counts), TAK_CHILDREN)
    inputs = np.zeros((*shape, *after.shape[1:]), np.float16)
    targets, mask = np.zeros(shape, np.float32), np.zeros(shape, bool)
    for r, count in enumerate(counts):
        inputs[r, :count], targets[r, :count], mask[r, :count] = x[r], gains[r], True
    return inputs, targets, mask


def concat_examples(parts: list[Arrays]) -> Arrays:
    """Batches of examples joined into one, column by column."""
    return tuple(np.concatenate(column) for column in zip(*parts))  # type: ignore[return-value]


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

    def __iter__(self) -> Iterator[Arrays]:
        self.games = self.unannotated = bad = 0
        parts: list[Arrays] = []
        size = 0
        for record in self.log:
            try:
                arrays = record_positions(record, self.exact_only)
            except ValueError:
                bad += 1
                continue
            if arrays is None:
                self.unannotated += 1
                continue
            self.games += 1
            teacher = str(record.get("teacher", "an unnamed teacher"))
            if teacher not in self.teachers:
                self.teachers.append(teacher)
            parts.append(arrays)
            size += len(arrays[0]) * moves_a_row(record.get("variant", DEFAULT_GAME))
            if size >= self.chunk:
                yield concat_examples(parts)
                parts, size = [], 0
        if bad:
            log.warning("skipped %d record(s) whose values do not fit the game", bad)
        self.skipped = self.log.skipped + bad
        if parts:
            yield concat_examples(parts)


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
        self.parts: list[Arrays] = []
        self.games = self.seen = self.size = 0
        self._joined: Arrays | None = None

    def add(self, records: Iterable[dict[str, Any]]) -> None:
        for record in records:
            arrays = record_positions(record, self.exact_only)
            if arrays is not None:
                self._take(arrays)
                self.games += 1

    def add_chunks(self, chunks: Iterable[Arrays], games: int) -> None:
        for chunk in chunks:
            self._take(chunk)
        self.games += games

    def add_reader(self, reader: PositionReader) -> None:
        """Take a reader's examples as they stream (memory holds those kept, not every
        example of the files), and count its games."""
        self.add_chunks(reader, 0)
        self.games += reader.games

    def _take(self, arrays: Arrays) -> None:
        room = min(self.capacity - self.size, len(arrays[0]))
        if room:
            self.parts.append(tuple(column[:room] for column in arrays))  # type: ignore[arg-type]
            self.size += room
            self.seen += room
            self._joined = None
        rest = tuple(column[room:] for column in arrays)
        n = len(rest[0])
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

    def arrays(self) -> Arrays:
        if self._joined is None:
            self._joined = concat_examples(self.parts)
            self.parts = [self._joined]
        return self._joined

    def sample(self, size: int, rng: np.random.Generator) -> Arrays:
        """`size` examples, shuffled: drawn without replacement when there are more,
        with replacement when there are fewer (so a refit always does the same work); all
        of them, exactly as many, are the store's own, shuffled in place (no copy)."""
        rel, gains, mask = self.arrays()
        if len(rel) == size:  # the same permutation of each column: one seed, one length
            seed = int(rng.integers(2**63))
            for column in (rel, gains, mask):
                np.random.default_rng(seed).shuffle(column)
            return rel, gains, mask
        if len(rel) > size:
            pick = rng.permutation(len(rel))[:size]
        else:
            pick = rng.integers(0, len(rel), size)
        return rel[pick], gains[pick], mask[pick]


def visit_row(state: Any, counts: np.ndarray) -> list[int]:
    """A position's visit counts (one per action id) as a record keeps them: one a house
    on the sowing games, one a legal move in increasing action id on the others (Tak's
    3,175 ids would mostly be zeros)."""
    return [int(c) for c in _row(state, counts)]


def policy_row(state: Any, policy: np.ndarray) -> list[float]:
    """A position's policy (one probability per action id) as a record keeps it, in the
    layout of `visit_row`."""
    return [round(float(p), 5) for p in _row(state, policy)]


def _row(state: Any, dense: np.ndarray) -> np.ndarray:
    return dense if state.game in SOWN else dense[state.legal_moves()]


def _visit_counts(states: list, visits: list, mask: np.ndarray) -> np.ndarray:
    """The records' visit rows (`visit_row`) as counts one per action id; ValueError when
    they do not fit the positions."""
    if states[0].game in SOWN:
        counts = np.array(visits, dtype=np.float64)
        if counts.shape != mask.shape or (counts[~mask] != 0).any():
            raise ValueError("visits are not counts of legal moves")
        return counts
    counts = np.zeros(mask.shape)
    for row, (state, seen) in enumerate(zip(states, visits)):
        legal = state.legal_moves()
        if not isinstance(seen, list) or len(seen) != len(legal):
            raise ValueError("visits are not counts of legal moves")
        counts[row, legal] = seen
    return counts


def visit_targets(
    record: dict[str, Any], value_scale: float, search_value: float = 0.0, score_weight: float = 0.0
) -> Arrays | None:
    """Targets (`policy_value.features`, policy, mask, value) from a self-play record's
    `visits` and outcome (a sowing game's margin on the scale `value_scale`, seeds, with the
    score utility's `score_weight`: `margin_value`); None without visits. Where the record
    has a `policy` (a Gumbel search's improved policy a position, null where the search
    was a fast one), only its positions are targets, the policy theirs. With
    `search_value` w and the search's value of each position (`q`, seeds), where the
    record has them, the value target is (1 - w) * the outcome's + w * margin_value(q).
    ValueError when the visits, the policy or the values do not fit."""
    visits = record.get("visits")
    if visits is None:
        return None
    states = replay(record)[:-1]
    if not isinstance(visits, list) or len(visits) != len(states) or not states:
        raise ValueError("visits do not match the moves")
    mask = legal_mask(states)
    try:
        counts = _visit_counts(states, visits, mask)
    except (TypeError, ValueError):
        raise ValueError("visits are not counts of legal moves") from None
    if (counts < 0).any() or (counts.sum(1) <= 0).any():
        raise ValueError("visits are not counts of legal moves")
    policy = counts / counts.sum(1, keepdims=True)
    values = outcome_values(record, states, value_scale, score_weight)
    if search_value and "q" in record:
        searched = _search_values(record, len(states))
        if states[0].game in SOWN:
            searched = margin_value(searched, value_scale, score_weight)
        values = (1 - search_value) * values + search_value * searched
    if "policy" not in record:
        kept = np.flatnonzero(not_measured(states))
        if not len(kept):
            return None
        return features([states[k] for k in kept]), policy[kept], mask[kept], values[kept]
    rows = record["policy"]
    if not isinstance(rows, list) or len(rows) != len(states):
        raise ValueError("policy does not match the moves")
    free = not_measured(states)
    kept = [k for k, row in enumerate(rows) if row is not None and free[k]]
    if not kept:
        return None
    try:
        targets = _visit_counts([states[k] for k in kept], [rows[k] for k in kept], mask[kept])
    except (TypeError, ValueError):
        raise ValueError("policy is not a distribution over the legal moves") from None
    if (targets < 0).any() or not np.allclose(targets.sum(1), 1.0, atol=1e-3):
        raise ValueError("policy is not a distribution over the legal moves")
    targets /= targets.sum(1, keepdims=True)
    return features([states[k] for k in kept]), targets, mask[kept], values[kept]


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
    """The value target of each position of a finished game: on the sowing games the
    final margin for its mover, squashed as the teacher's are (`margin_value`); on the
    others 1 for the winner's positions, -1 for the loser's, 0 in a draw (or a game
    stopped unfinished)."""
    final = replay(record)[-1]
    movers = np.array([state.player for state in states])
    if final.game not in SOWN:
        winner = final.winner()
        return np.zeros(len(states)) if winner is None else np.where(movers == winner, 1.0, -1.0)
    board = np.array(final.board, dtype=np.int64)
    margin0 = float(engine.score_diff(board, final.houses))
    return margin_value(np.where(movers == 0, margin0, -margin0), value_scale, score_weight)
