"""What the networks learn from: recorded games annotated by a search teacher.

`Teacher(depth).annotate(record)` adds to a game record (training/*.jsonl) the key
"values": for every position of the game, the value of each legal move for the mover
(alpha-beta with exact windows, `Minimax(depth).evaluate`; seeds ahead at the horizon,
the end of the game counted exactly), None for an illegal house; and "teacher", the
search that made them. Readers that do not know these keys ignore them.
`Teacher(depth, exact_nodes=N)` gives instead the solver's exact values (final store
differences, the same unit) wherever it proves them within N nodes: the endgame and
much of the middle game, with the endgame database of `mancala.games.sowing.solver`.

Training examples are (position from the mover's side, seeds gained by each legal move
from here = value - current store difference). `PositionReader` streams them out of
JSONL files in chunks of bounded size; `PositionStore` keeps a bounded, uniform sample of
them in memory for the training loops that refit after every batch of games.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from mancala.ai.minimax import TT_ENTRY_BYTES
from mancala.arena.records import GameLog, replay
from mancala.game_state import GameState
from mancala.nn_lib.encoders import legal_mask, mover_boards

log = logging.getLogger(__name__)
Arrays = tuple[np.ndarray, np.ndarray, np.ndarray]  # boards (mover's view), gains, mask
SOWN = ("kalah", "sungka")  # the games whose records these examples are made from


class Teacher:
    """Annotates records with the value of every legal move for the mover: the solver's
    exact values where it proves them within `exact_nodes` nodes (Kalah only; the first
    use builds or loads the endgame database), alpha-beta to `depth` plies (numba)
    elsewhere. `game` names the game of the records it values.

    A game is valued from its last position back to its first (`chain`): each proof
    starts from the value of the move played next, the solver's table carries what the
    later positions proved, and once a proof runs out of its budget the earlier, fuller
    positions of that game go straight to alpha-beta. The values of the last `KNOWN`
    positions valued are kept, since openings repeat. `chain=False` values each position
    on its own, in game order (the way of the first version, kept for comparison).
    """

    KNOWN = 100_000  # positions whose values are kept
    TABLE_BYTES = TT_ENTRY_BYTES << 16  # alpha-beta's table: small enough to stay in cache

    def __init__(
        self, depth: int = 8, exact_nodes: int = 0, chain: bool = True, game: str = "kalah"
    ) -> None:
        from mancala.ai.limits import REGISTRY_LIMITS, Limits
        from mancala.ai.minimax import Minimax

        if exact_nodes < 0:
            raise ValueError(f"exact_nodes must be at least 0, not {exact_nodes}")
        exact_nodes = exact_nodes if game == "kalah" else 0  # the solver plays Kalah only
        self.depth, self.exact_nodes, self.chain = depth, exact_nodes, chain
        self.name = f"minimax:{depth}" + (f"+solver:n={exact_nodes}" if exact_nodes else "")
        limits = Limits(memory=self.TABLE_BYTES) if chain else REGISTRY_LIMITS
        self.search = Minimax(depth=depth, limits=limits)
        self.exact = self.searched = 0  # positions valued each way
        self.known: OrderedDict[GameState, tuple[list[int | None], bool]] = OrderedDict()

    def move_values(self, state: GameState) -> list[int | None]:
        """Value of every house for the mover (None where illegal)."""
        return self._valued(state, 0.0)[0]

    def annotate(self, record: dict[str, Any]) -> dict[str, Any]:
        """`record` with "values" (one list a move) and "teacher" added."""
        states = replay(record)[:-1]
        if self.chain:
            record["values"] = self._chained_values(states)
        else:
            record["values"] = [self.move_values(state) for state in states]
        record["teacher"] = self.name
        return record

    def _chained_values(self, states: list[GameState]) -> list[list[int | None]]:
        values: list = [None] * len(states)
        guess: float | None = 0.0  # None once a proof has failed in this game
        for i in reversed(range(len(states))):
            values[i], exact = self._recalled(states[i], guess)
            if not exact:
                guess = None
            elif i:  # the move played before this position reaches its value
                best = max(v for v in values[i] if v is not None)
                guess = best if states[i - 1].player == states[i].player else -best
        return values

    def _recalled(self, state: GameState, guess: float | None) -> tuple[list, bool]:
        """(values, exact) of `state`: kept from before, or valued now and kept."""
        known = self.known.get(state)
        if known is None:
            known = self._valued(state, guess)
            self.known[state] = known
            if len(self.known) > self.KNOWN:
                self.known.popitem(last=False)
        else:
            self.exact += known[1]
            self.searched += not known[1]
        return known

    def _valued(self, state: GameState, guess: float | None) -> tuple[list, bool]:
        """(values by house, exact): a proof from `guess` first unless it is None."""
        moves = None if guess is None else self._exact_values(state, guess)
        exact = moves is not None
        if exact:
            self.exact += 1
        else:
            moves = self.search.evaluate(state)["moves"]
            self.searched += 1
        return [int(moves[m]) if m in moves else None for m in range(state.houses)], exact

    def _exact_values(self, state: GameState, guess: float) -> dict[int, int] | None:
        if not self.exact_nodes or state.variant != "kalah":
            return None
        from mancala.ai.solver import shared_solver
        from mancala.games.sowing.solver import OutOfBudget

        try:
            return shared_solver(state).solve(state, nodes=self.exact_nodes, guess=guess)["moves"]
        except OutOfBudget:
            return None


def record_positions(record: dict[str, Any]) -> Arrays | None:
    """The training examples of one annotated record; None when it has no "values" or is
    of another game than Kalah and Sungka.
    ValueError when the values do not fit the game (wrong length, illegal moves)."""
    values = record.get("values")
    if values is None or record.get("variant", "kalah") not in SOWN:
        return None
    states = replay(record)[:-1]
    if not isinstance(values, list) or len(values) != len(states):
        raise ValueError("values do not match the moves")
    if not states:
        return None
    rel = mover_boards(states)
    h = states[0].houses
    try:
        v = np.array([[np.nan if x is None else x for x in row] for row in values], np.float64)
    except (TypeError, ValueError):
        raise ValueError("values are not lists of numbers") from None
    if v.shape != (len(states), h):
        raise ValueError("values are not one number a house")
    mask = ~np.isnan(v)
    if not (mask == legal_mask(rel)).all():
        raise ValueError("values given for illegal moves, or missing for legal ones")
    gains = np.where(mask, v - (rel[:, h] - rel[:, 2 * h + 1])[:, None], 0.0)
    return rel.astype(np.int16), gains.astype(np.float32), mask


def _concat(parts: list[Arrays]) -> Arrays:
    return tuple(np.concatenate(column) for column in zip(*parts))  # type: ignore[return-value]


class PositionReader:
    """Stream the examples of JSONL files (default training/*.jsonl) in chunks of about
    `chunk` positions, so files larger than memory can be trained on.

    After a pass: `games` (annotated games read), `unannotated` (valid games without
    values, not used), `skipped` (lines skipped as corrupt or invalid), `teachers` (the
    "teacher" names of the games read, in order of first sight).
    """

    def __init__(
        self, paths: Iterable[str | os.PathLike] | None = None, chunk: int = 200_000
    ) -> None:
        self.log = GameLog(paths)
        self.chunk = chunk
        self.games = self.unannotated = self.skipped = 0
        self.teachers: list[str] = []

    def __iter__(self) -> Iterator[Arrays]:
        self.games = self.unannotated = bad = 0
        parts: list[Arrays] = []
        size = 0
        for record in self.log:
            try:
                arrays = record_positions(record)
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
            size += len(arrays[0])
            if size >= self.chunk:
                yield _concat(parts)
                parts, size = [], 0
        if bad:
            log.warning("skipped %d record(s) whose values do not fit the game", bad)
        self.skipped = self.log.skipped + bad
        if parts:
            yield _concat(parts)


class PositionStore:
    """A uniform sample of at most `capacity` of the examples seen (reservoir sampling),
    in memory; grows by `add(records)`. `seen` counts every example offered, `len` those
    kept, so memory stays bounded however many games are recorded."""

    def __init__(self, capacity: int = 2_000_000, seed: int = 0) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self.rng = np.random.default_rng(seed)
        self.parts: list[Arrays] = []
        self.games = self.seen = self.size = 0
        self._joined: Arrays | None = None

    def add(self, records: Iterable[dict[str, Any]]) -> None:
        for record in records:
            arrays = record_positions(record)
            if arrays is not None:
                self._take(arrays)
                self.games += 1

    def add_chunks(self, chunks: Iterable[Arrays], games: int) -> None:
        for chunk in chunks:
            self._take(chunk)
        self.games += games

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
            self._joined = _concat(self.parts)
            self.parts = [self._joined]
        return self._joined

    def sample(self, size: int, rng: np.random.Generator) -> Arrays:
        """`size` examples, shuffled: drawn without replacement when there are more,
        with replacement when there are fewer (so a refit always does the same work)."""
        rel, gains, mask = self.arrays()
        if len(rel) >= size:
            pick = rng.permutation(len(rel))[:size]
        else:
            pick = rng.integers(0, len(rel), size)
        return rel[pick], gains[pick], mask[pick]
