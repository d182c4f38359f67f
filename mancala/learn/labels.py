"""Exact labels at scale: every legal move of every position of many games, valued.

The games are drawn the way the networks meet positions: each game pairs two players,
each drawn from the strong pool (deep alpha-beta and the best networks) or from the main
job's mixed practice pool, after 0..`OPENING_PLIES` uniformly random plies. Game `i` of a
labelling depends on its seed and `i` alone, so a stopped labelling continues with the
games it has not written, on any number of workers, and gives the same records.

Each game is a record of training/README.md, labelled by `mancala.learn.teacher.Teacher`
with the solver: the exact value of every legal move (final store difference for the
mover) where a proof fits in the node budget of a position, else alpha-beta's value at
its depth, and "exact" says which. The key "label" holds the game's index in the
labelling. The file's first line is a header with the command that made it.
"""

from __future__ import annotations

import json
import lzma
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from mancala.ai.base import is_sowing
from mancala.arena.match import ply_limit
from mancala.arena.openings import random_opening
from mancala.arena.parallel import GameJob, Seat
from mancala.arena.records import GameLog, replay
from mancala.arena.solved_set import STAGES, seeds_in_houses, stage_of
from mancala.core.paths import DATA_DIR
from mancala.games import game

STRONG = ("minimax:8", "minimax:12", "nnxat2h512", "nnxa2h512")  # strong players
OPENING_PLIES = 6  # random plies before the players take over (0..6)
FORMAT = "mancala-labels"


@dataclass(frozen=True)
class Labelling:
    """What a labelling plays: its seed, its seats (the strong pool, then the game's
    practice pool, explored as the main job explores them) and its start."""

    seed: int
    start: Any
    explore: float = 0.1

    def strong(self) -> list[str]:
        """The strong players that play the start's rules (networks play their board)."""
        from mancala.ai.registry import can_play

        return [spec for spec in STRONG if can_play(spec, self.start)]

    def seats(self) -> list[Seat]:
        strong = [Seat(spec) for spec in self.strong()]
        mixed = [Seat(spec, self.explore) for spec in game(self.start.game).practice]
        return strong + mixed

    def job(self, index: int) -> GameJob:
        """Game `index`: a seat from each pool half the time, its opening, its seed."""
        rng = random.Random(f"{self.seed}:{index}")
        strong, mixed = len(self.strong()), len(game(self.start.game).practice)

        def seat() -> int:
            return rng.randrange(strong) if rng.random() < 0.5 else strong + rng.randrange(mixed)

        seats = (seat(), seat())
        _, opening = random_opening(self.start, rng.randint(0, OPENING_PLIES), rng)
        seed, limit = rng.getrandbits(30), ply_limit(self.start)
        return GameJob(seats, self.start, tuple(opening), seed, limit)


@dataclass(frozen=True)
class FirstPlies:
    """A labelling of the first plies: every position a game can reach in its first
    `plies` moves (an extra turn is a move), each once, in a fixed order (ply by ply, then
    by the moves that reach it first), which a deeper labelling begins with: one file
    grows ply by ply. Job `i` proves position `i` with `proofs` (a
    `mancala.learn.teacher.Proofs`), so a stopped labelling continues as a game labelling
    does; its record is the line that reaches the position (unlabelled) and the best move."""

    plies: int
    start: Any
    proofs: Any = None  # how a worker proves a position (`GameJob.playing`)
    seed: int = 0  # no draw: every position is labelled

    @cached_property
    def lines(self) -> list[tuple[int, ...]]:
        """The moves from the start to each position, in the labelling's order.

        >>> from mancala.game_state import GameState
        >>> start = GameState.new("kalah")
        >>> lines = FirstPlies(2, start).lines
        >>> len(lines), lines[:3], lines[7], FirstPlies(3, start).lines[:42] == lines
        (42, [(), (0,), (1,)], (0, 0), True)
        """
        lines, seen, frontier = [()], {self.start}, [((), self.start)]
        for _ in range(self.plies):
            reached = []
            for line, state in frontier:
                for move in state.legal_moves():
                    child = state.play(move)
                    if not child.is_over() and child not in seen:
                        seen.add(child)
                        reached.append(((*line, move), child))
            lines += [line for line, _ in reached]
            frontier = reached
        return lines

    def seats(self) -> list[Seat]:
        return []  # the proofs play the one move (`GameJob.playing`)

    def job(self, index: int) -> GameJob:
        line = self.lines[index]
        return GameJob((0, 0), self.start, line, index, len(line) + 1, self.proofs)


def labels_stem(start: Any) -> str:
    """The name of a sowing board's labels: kalah-h6-s4 (-ec with the empty capture)."""
    size = f"h{start.houses}-s{start.seeds}" + ("-ec" if start.empty_capture else "")
    return f"{start.game}-{size}"


def shipped_labels(start: Any) -> list[Path]:
    """The labels that ship for the board of `start` (mancala/data/GAME/STEM-labels-*
    .jsonl.xz: the games of each seed, the first plies): the labels behind its shipped
    weights (Kalah's exact where the solver proves them, Sungka's a 10-ply alpha-beta's);
    [] for a board without."""
    if not is_sowing(start):
        return []
    return sorted((DATA_DIR / start.game).glob(f"{labels_stem(start)}-labels-*.jsonl.xz"))


def header(labelling: Labelling | FirstPlies, command: str, teacher: str) -> dict[str, Any]:
    plies = {"first_plies": True} if isinstance(labelling, FirstPlies) else {}
    return {
        "kind": "header",
        "format": FORMAT,
        "variant": labelling.start.variant,
        "options": labelling.start.options,
        "seed": labelling.seed,
        "teacher": teacher,
        "command": command,
        **plies,
    }


def labelled(paths: Iterable[Path]) -> Iterator[dict[str, Any]]:
    """The labelled game records of `paths` (.jsonl or .jsonl.xz); damaged lines skipped."""
    return (record for record in GameLog(paths) if "values" in record)


def read_header(path: Path) -> dict[str, Any] | None:
    """The header of a labels file, None when it has none (or is empty)."""
    opened = lzma.open(path, "rt") if path.suffix == ".xz" else open(path, encoding="utf-8")
    with opened as handle:
        try:
            first = json.loads(handle.readline() or "null")
        except json.JSONDecodeError:
            return None
    return first if isinstance(first, dict) and first.get("kind") == "header" else None


def done_indices(path: Path) -> set[int]:
    """The games of a labelling already written to `path`."""
    if not path.is_file():
        return set()
    return {record["label"] for record in labelled([path]) if "label" in record}


def positions(records: Iterable[dict[str, Any]]) -> Iterator[tuple[Any, list, bool, float]]:
    """(state, values, exact, milliseconds) of every labelled position of `records` (a
    row of values None: not labelled)."""
    for record in records:
        states = replay(record)[:-1]
        exact = record.get("exact") or [False] * len(states)
        ms = record.get("label_ms") or [0.0] * len(states)
        rows = zip(states, record["values"], exact, ms, strict=True)
        yield from (row for row in rows if row[1] is not None)


def stage_report(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """By stage (seeds in the houses): positions, the share exact, the labelling time and
    labels a core-hour (positions met again in a game count their own, tiny, time)."""
    rows = {stage_of(low): [0, 0, 0.0] for low, _ in STAGES}
    for state, _, exact, ms in positions(records):
        row = rows[stage_of(seeds_in_houses(state))]
        row[0] += 1
        row[1] += bool(exact)
        row[2] += ms / 1000
    total = [sum(r[0] for r in rows.values()), sum(r[1] for r in rows.values())]
    total.append(sum(r[2] for r in rows.values()))
    out = []
    for stage, (count, exact, seconds) in [*rows.items(), ("all", total)]:
        out.append(
            {
                "stage": stage,
                "positions": count,
                "exact": exact,
                "seconds": seconds,
                "per_core_hour": 3600 * count / seconds if seconds else None,
            }
        )
    return out
