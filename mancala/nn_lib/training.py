"""The training loop shared by random_train.py and adversary.py.

Play a batch of games between players (with exploration moves) on N workers
(`mancala.arena.parallel`), annotate every game with the teacher's move values and append
it to a JSONL file as soon as it ends, then refit each network on the examples recorded
so far, save it atomically, and measure it against fixed opponents (the learning curve,
mancala/models/learning_curve.json/.png).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mancala.ai.base import Player
from mancala.arena.match import play_games, random_opening
from mancala.arena.parallel import Finished, GameJob, Seat, Workers, add_workers_arguments
from mancala.arena.records import append_games
from mancala.core.atomic import atomic_path
from mancala.core.cli import float_in, int_in
from mancala.core.stopping import signals_held
from mancala.game_state import GameState
from mancala.nn_lib.base import MODELS_DIR, Network, masked_argmax
from mancala.nn_lib.data import PositionReader, PositionStore, Teacher
from mancala.nn_lib.meta import describe_data


def openings(
    count: int, rng: random.Random, most: int = 8, start: GameState | None = None
) -> tuple[list, list]:
    """`count` starts after 0..`most` random plies from `start` (Kalah(6,4) by default):
    (states, opening moves)."""
    start = start or GameState.new()
    starts, moves = [], []
    for _ in range(count):
        state, opening = random_opening(start, rng.randint(0, most), rng)
        starts.append(state)
        moves.append(opening)
    return starts, moves


KEEP = 2_000_000  # examples kept in memory for the refits (a uniform sample of all seen)


class Practice:
    """Records annotated games to `out` and keeps a uniform sample of at most `keep` of
    the examples in memory for refits."""

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
    ) -> None:
        self.out = Path(out)
        self.start = start or GameState.new()
        self.workers = workers or Workers(1)
        self.sources = list(dict.fromkeys([*(read or []), self.out]))
        self.teacher = Teacher(teacher_depth, exact_nodes, game=self.start.game)
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.store = PositionStore(keep, seed)
        self.recorded = 0
        if read:
            reader = PositionReader(read)
            self.store.add_chunks(list(reader), reader.games)
            self.skipped = reader.skipped

    def play(self, pairings: Sequence[tuple[Seat, Seat]], games: int) -> list[dict[str, Any]]:
        """`games` games of each pairing (its first seat moves first) from random openings,
        each seeded by its own seed and played on `workers`; each is annotated and appended
        to `out` (by this process alone) as soon as it is back. The records, as they ended."""
        seats = list({id(seat): seat for pairing in pairings for seat in pairing}.values())
        place = {id(seat): i for i, seat in enumerate(seats)}
        start = self.start
        jobs = [
            GameJob((place[id(one)], place[id(two)]), start, tuple(moves), self.rng.getrandbits(30))
            for one, two in pairings
            for moves in openings(games, self.rng, start=start)[1]
        ]
        teaching = (self.teacher.depth, self.teacher.exact_nodes, start.game)
        batches = self.workers.play_batches(seats, jobs, teaching)
        return [record for batch in batches for record in self._keep(batch)]

    def _keep(self, batch: list[Finished]) -> list[dict[str, Any]]:
        """Append the games that came back together (one write), and learn from them."""
        records = [done.record for done in batch]
        append_games(self.out, records)
        self.store.add(records)
        self.recorded += len(records)
        self.teacher.exact += sum(done.valued[0] for done in batch)
        self.teacher.searched += sum(done.valued[1] for done in batch)
        return records

    def refit(self, net: Network, sample: int, epochs: int, batch_size: int = 512) -> float:
        """Fit `net` on `sample` recorded examples, save it; the loss. Ctrl+C and SIGTERM wait
        until the network is saved (interrupting TensorFlow mid-fit can hang the exit)."""
        examples = self.store.sample(sample, self.np_rng)
        with signals_held():
            loss = net.fit(*examples, epochs=epochs, batch_size=batch_size)
            net.save(teacher=self.teacher.name, data=self.described())
        return loss

    def described(self) -> str:
        """What the refits learn from, in words (for the weights' metadata)."""
        return describe_data(self.sources, self.store.games, len(self.store))


def win_rate(
    player: Player, opponent: Player, games: int, seed: int = 1, start: GameState | None = None
) -> float:
    """% of `games` openings (from `start`, Kalah(6,4) by default) won by `player`, each
    opening played in both seats."""
    starts, moves = openings(games, random.Random(seed), most=4, start=start)
    won = 0
    for seat in (0, 1):
        seated = [player, opponent] if seat == 0 else [opponent, player]
        records = play_games(seated, starts, openings=moves)
        won += sum(record["winner"] == seat for record in records)
    return 100.0 * won / (2 * games)


SMOOTH = 5  # the curve shows the mean of this many measurements (each 40 games is noisy)


class LearningCurve:
    """Each network's strength over training, kept in `path` (JSON) and drawn as PNG:
    win rates against fixed opponents ("rates") and, where measured, the share of
    value-keeping moves on the whole-game set ("kept")."""

    def __init__(self, path: Path = MODELS_DIR / "learning_curve.json", fresh: bool = False):
        self.path = Path(path)
        self.points: list[dict[str, Any]] = []
        if self.path.is_file() and not fresh:
            self.points = json.loads(self.path.read_text())

    def add(self, point: dict[str, Any]) -> None:
        """Add a point; write the JSON and PNG. Ctrl+C and SIGTERM wait until both are written: a
        KeyboardInterrupt inside matplotlib's C code surfaces as a ValueError
        ("Invalid affine transformation matrix"), not as an interrupt."""
        self.points.append(point)
        with signals_held():
            with atomic_path(self.path) as temp:
                temp.write_text(json.dumps(self.points, indent=1))
            self.plot(self.path.with_suffix(".png"))

    def panels(self) -> list[tuple[str, str, str | None]]:
        """(title, key of the points, opponent or None) of each measure in the points."""
        opponents = sorted({o for p in self.points for o in p.get("rates", {})})
        out = [(f"win % against {o}", "rates", o) for o in opponents]
        if any(p.get("kept") for p in self.points):
            out.append(("value-keeping moves %, whole-game set", "kept", None))
        return out

    def plot(self, png: Path) -> None:
        """One column a measure; by minutes of training (top) and games recorded (below)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from mancala.arena.plots import save_figure

        panels = self.panels()
        figure, axes = plt.subplots(
            2, len(panels), figsize=(5 * len(panels), 8), squeeze=False, layout="constrained"
        )
        for column, (title, key, opponent) in enumerate(panels):
            for row, (x, label) in enumerate(
                (("minutes", "minutes of training"), ("games", "games recorded"))
            ):
                self._draw(axes[row][column], key, opponent, x)
                axes[row][column].set_title(f"{title} (mean of {SMOOTH})")
                axes[row][column].set_xlabel(label)
        axes[0][-1].legend(fontsize=7, loc="lower right")
        save_figure(figure, png)
        plt.close(figure)

    def _draw(self, ax: Any, key: str, opponent: str | None, x: str) -> None:
        def measure(point: dict[str, Any]) -> dict[str, float]:
            found = point.get(key, {})
            return found.get(opponent, {}) if opponent is not None else found

        for net in sorted({n for p in self.points for n in measure(p)}):
            seen = [p for p in self.points if net in measure(p)]
            xs = [p.get(x, 0) for p in seen]
            ys = np.array([measure(p)[net] for p in seen])
            smooth = np.convolve(ys, np.ones(SMOOTH), "valid") / SMOOTH if len(ys) >= SMOOTH else ys
            ax.plot(xs[len(xs) - len(smooth) :], smooth, label=net)
        ax.set_ylim(-2, 102)
        ax.grid(alpha=0.3)


def agreement(net: Network, rel: np.ndarray, gains: np.ndarray, mask: np.ndarray) -> float:
    """% of positions where the network's move is one of the teacher's best moves."""
    chosen = masked_argmax(net.predict(rel), mask)
    best = np.where(mask, gains, -np.inf).max(axis=1)
    return 100.0 * float(np.mean(gains[np.arange(len(rel)), chosen] >= best))


MAX_TEACHER_DEPTH = 20  # plies; deeper teachers would take days a batch
TEACHER_DEPTH = {"kalah": 10, "sungka": 8}  # alpha-beta's depth where the solver gives up
EXACT_NODES = 20_000  # and the solver's proofs within this many nodes


def practice_arguments(parser: Any, out: Path | None, games: int, least_games: int = 1) -> None:
    """The options random_train.py and adversary.py share, each checked on the way in."""
    parser.add_argument("--batches", type=int_in(1), help="stop after this many batches")
    parser.add_argument(
        "--games", type=int_in(least_games), default=games, help=f"games a batch ({games})"
    )
    parser.add_argument(
        "--teacher",
        type=int_in(1, MAX_TEACHER_DEPTH),
        help="teacher search depth (Kalah 10, Sungka 8, where Sungka's relay sowing makes "
        f"each ply dearer; 1..{MAX_TEACHER_DEPTH})",
    )
    parser.add_argument(
        "--exact-nodes",
        type=int_in(0),
        default=EXACT_NODES,
        help="teacher (Kalah): the solver's exact values where it proves them within this "
        f"many nodes ({EXACT_NODES:,}; 0: alpha-beta only)",
    )
    parser.add_argument(
        "--keep",
        type=int_in(1000),
        default=KEEP,
        help=f"examples kept in memory for the refits ({KEEP:,})",
    )
    parser.add_argument(
        "--explore", type=float_in(0.0, 1.0), default=0.1, help="random-move rate (0.1)"
    )
    parser.add_argument("--sample", type=int_in(1), default=200_000, help="examples a refit")
    where = out.name if out else "the run's games.jsonl"
    parser.add_argument("--out", type=Path, default=out, help=f"games go here ({where})")
    parser.add_argument("--models", type=Path, help="weights folder (default mancala/models)")
    parser.add_argument("--seed", type=int, default=0)
    add_workers_arguments(parser)
