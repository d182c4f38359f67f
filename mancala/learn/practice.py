"""The main job's batches (`mancala.learn.main_job`: `mancala train` and its presets).

Play a batch of games between players (with exploration moves) on N workers
(`mancala.arena.parallel`), annotate every game with the teacher's move values and append
it to a JSONL file as soon as it ends, then refit each network on the examples recorded
so far, save it atomically, and measure it against fixed opponents (the learning curve,
`mancala.learn.curve`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mancala.arena.match import ply_limit
from mancala.arena.openings import random_openings
from mancala.arena.parallel import Finished, GameJob, Seat, Workers
from mancala.arena.records import append_games
from mancala.core.stopping import signals_held
from mancala.game_state import GameState
from mancala.games import Capability, offers
from mancala.learn.data import PositionReader, PositionStore, moves_a_row
from mancala.learn.teacher import Teacher, Teaching
from mancala.nn_lib.base import Network
from mancala.nn_lib.meta import describe_data

PRACTICE_PLIES = 8  # a practice game starts after 0..8 random plies
KEEP = 2_000_000  # examples kept in memory for the refits (a uniform sample of all seen)


class Practice:
    """Records annotated games to `out` and keeps a uniform sample of at most `keep` of
    the examples in memory for refits: those of the `labels` (on a board the solver
    reaches, the positions whose every move is exact alone; elsewhere every labelled
    one), of the recorded games `read`, and of the games it plays (with `exact_games`,
    there too the exact positions alone, on a board the solver reaches). An az teacher
    (`teacher_simulations`) is guided by the network in `teacher_weights` as the file
    is when a batch is handed out (the shipped one while there is none)."""

    def __init__(
        self,
        out: Path,
        teacher_depth: int = 8,
        seed: int = 0,
        read: Sequence[Path] | None = None,
        exact_nodes: int = 0,
        keep: int = KEEP,
        start: GameState | None = None,
        workers: Workers | None = None,
        teacher_simulations: int = 0,
        labels: Sequence[Path] = (),
        teacher_weights: Path | None = None,
        exact_games: bool = False,
    ) -> None:
        self.out = Path(out)
        self.start = start or GameState.new()
        self.workers = workers or Workers(1)
        self.sources = list(dict.fromkeys([*labels, *(read or []), self.out]))
        self.teacher_weights = teacher_weights
        self.teacher = Teacher(
            teacher_depth,
            exact_nodes,
            game=self.start.game,
            simulations=teacher_simulations,
            weights=guiding(teacher_weights)[0],
        )
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.row = moves_a_row(self.start.game)  # a Tak row is a position's moves: keep and
        exact = exact_games and offers(self.start.game, Capability.SOLVER)
        self.store = PositionStore(max(1, keep // self.row), seed, exact)  # sample: moves
        self.recorded = 0
        self.skipped = 0
        self.busy = 0.0  # the workers' seconds on games since the first were handed out
        self.began: float | None = None
        if labels:  # where the solver reaches, exact positions alone (docs/perfect_play.md)
            reader = PositionReader(labels, exact_only=offers(self.start.game, Capability.SOLVER))
            self.store.add_reader(reader)
            self.skipped += reader.skipped
        self.labelled = self.store.games, self.store.seen  # of the labels: (games, positions)
        if read:
            reader = PositionReader(read, exact_only=exact)
            self.store.add_reader(reader)
            self.skipped += reader.skipped

    def play(self, pairings: Sequence[tuple[Seat, Seat]], games: int) -> list[dict[str, Any]]:
        """`games` games of each pairing (its first seat moves first) from random openings,
        each seeded by its own seed and played on `workers`; each is annotated and appended
        to `out` (by this process alone) as soon as it is back. The records, as they ended."""
        return self.finish(self.begin(pairings, games))

    def begin(
        self, pairings: Sequence[tuple[Seat, Seat]], games: int, ahead: bool = False
    ) -> Iterator[list[Finished]]:
        """The games of `play`, handed to the workers; `finish` reads them. With `ahead`,
        Ray workers play them from now on, while this process does other work."""
        if self.began is None:
            self.began = time.perf_counter()
        seats = list({id(seat): seat for pairing in pairings for seat in pairing}.values())
        place = {id(seat): i for i, seat in enumerate(seats)}
        start = self.start
        limit = ply_limit(start)
        jobs = [
            GameJob(
                (place[id(one)], place[id(two)]),
                start,
                tuple(moves),
                self.rng.getrandbits(30),
                limit,
            )
            for one, two in pairings
            for moves in random_openings(start, games, self.rng, PRACTICE_PLIES, vary=True)[1]
        ]
        teacher = self.teacher
        weights, stamp = guiding(self.teacher_weights)
        teaching = Teaching(
            teacher.depth, teacher.exact_nodes, start.game, teacher.simulations,
            teacher.max_seeds, weights=weights, stamp=stamp,
        )  # fmt: skip
        return self.workers.play_batches(seats, jobs, teaching, ahead)

    def finish(self, playing: Iterator[list[Finished]]) -> list[dict[str, Any]]:
        """The records of the games `begin` handed out, each appended to `out` and kept
        for the refits as it comes back."""
        return [record for batch in playing for record in self._keep(batch)]

    def busy_share(self) -> float:
        """The share of the workers' time, since the first games were handed out, that they
        spent on games (0 before)."""
        elapsed = time.perf_counter() - (self.began or time.perf_counter())
        return min(1.0, self.busy / (self.workers.count * elapsed)) if elapsed > 0 else 0.0

    def _keep(self, batch: list[Finished]) -> list[dict[str, Any]]:
        """Append the games that came back together (one write), and learn from them."""
        records = [done.record for done in batch]
        append_games(self.out, records)
        self.store.add(records)
        self.recorded += len(records)
        self.teacher.exact += sum(done.valued[0] for done in batch)
        self.teacher.searched += sum(done.valued[1] for done in batch)
        self.busy += sum(done.busy for done in batch)
        return records

    def refit(
        self,
        net: Network,
        sample: int,
        epochs: int,
        batch_size: int = 512,
        progress: Callable[[str], None] | None = None,
        learning_rate: float | None = None,
        missed_weight: float = 1.0,
    ) -> float:
        """Fit `net` on `sample` recorded examples, save it; the loss. Ctrl+C and SIGTERM end
        the fit after its current batch and leave the saved weights as they were, then go
        on as usual (interrupting TensorFlow inside a batch can hang the exit). A sample
        larger than the store takes each example once, and `progress` says so.
        `progress` gets the fit's lines on how far it is, `learning_rate` sets Adam's and
        `missed_weight` weighs the positions it gets wrong (`Network.fit`)."""
        rows = max(1, sample // self.row)
        if rows > len(self.store) and progress:
            progress(
                f"takes all {len(self.store) * self.row:,} examples recorded, fewer than "
                f"--sample's {sample:,}"
            )
        examples = self.store.sample(min(rows, len(self.store)), self.np_rng)
        with signals_held() as stopped:
            loss = net.fit(
                *examples,
                epochs=epochs,
                batch_size=batch_size,
                progress=progress,
                learning_rate=learning_rate,
                missed_weight=missed_weight,
                stop=stopped,
            )
            if not stopped():  # a fit cut short is not saved
                net.save(teacher=self.teacher.name, data=self.described())
        return loss

    def described(self) -> str:
        """What the refits learn from, in words (for the weights' metadata)."""
        return describe_data(self.sources, self.store.games, len(self.store))


def guiding(path: Path | None) -> tuple[str, int]:
    """(the file of the network that guides az's labels, its modification time): `path`
    as it is now, or ("", 0), the shipped network, where there is none (yet)."""
    if path is None or not path.is_file():
        return "", 0
    return str(path), path.stat().st_mtime_ns


MOST_GROWTH = 16  # a batch sized to fill the refits has at most this many times --games


def games_to_fill(least: int, games: int, busy: float, workers: int, seconds: float) -> int:
    """Games a batch needs to keep `workers` playing for `seconds` (the last refits' and
    gates' time) at the rate of the last batch (`games` games in `busy` seconds of the
    workers' time): at least `least`, at most MOST_GROWTH times it.

    >>> games_to_fill(240, 240, busy=20.0, workers=2, seconds=80.0)
    1920
    >>> games_to_fill(240, 240, busy=200.0, workers=2, seconds=10.0), games_to_fill(240, 0, 0, 2, 9)
    (240, 240)
    """
    if games <= 0 or busy <= 0 or seconds <= 0:
        return least
    every_worker = games * workers / busy  # games a second, every worker playing
    return int(min(MOST_GROWTH * least, max(least, round(every_worker * seconds))))


MAX_TEACHER_DEPTH = 20  # plies; deeper teachers would take days a batch
MAX_TEACHER_SIMULATIONS = 100_000  # az's, a position
EXACT_NODES = 20_000  # and the solver's proofs within this many nodes
