"""The learning curve: each network's strength over training, measured in games against
fixed opponents and kept in mancala/models/learning_curve.json/.png."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from mancala.ai.base import Player
from mancala.arena.openings import random_openings
from mancala.arena.pairs import play_pairs
from mancala.core.atomic import write_json
from mancala.core.paths import MODELS_DIR
from mancala.core.stopping import signals_held
from mancala.game_state import GameState


def win_rate(
    player: Player, opponent: Player, games: int, seed: int = 1, *, start: GameState
) -> float:
    """% of `games` openings of 0..4 random plies from `start` won by `player`, each
    opening played in both seats (a game that runs past `ply_limit` is a draw)."""
    starts, moves = random_openings(start, games, random.Random(seed), 4, vary=True)
    first, second = play_pairs(player, opponent, starts, moves).seats()
    return (first + second).win_percent()


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
        self._write()

    def mark(self, key: str, value: Any) -> None:
        """Add `key` to the last point (its batch's promotions, say); write both again."""
        if self.points:
            self.points[-1][key] = value
            self._write()

    def _write(self) -> None:
        with signals_held():
            write_json(self.path, self.points)
            self.plot(self.path.with_suffix(".png"))

    def panels(self) -> list[tuple[str, str, str | None]]:
        """(title, key of the points, opponent or None) of each measure in the points."""
        opponents = sorted({o for p in self.points for o in p.get("rates", {})})
        out = [(f"win % against {o}", "rates", o) for o in opponents]
        if any(p.get("kept") for p in self.points):
            out.append(("value-keeping moves %, whole-game set", "kept", None))
        return out

    def plot(self, png: Path) -> None:
        """One column a measure; by minutes of training (top) and games recorded (below),
        a star where the gate promoted a network (a new generation of it). Nothing is
        drawn while the points measure nothing (a run with --eval 0)."""
        from mancala.arena.plots import save_figure, subplots

        panels = self.panels()
        if not panels:
            return
        figure, axes = subplots(
            2, len(panels), figsize=(5 * len(panels), 8), squeeze=False, layout="constrained"
        )
        for column, (title, key, opponent) in enumerate(panels):
            for row, (x, label) in enumerate(
                (("minutes", "minutes of training"), ("games", "games recorded"))
            ):
                self._draw(axes[row][column], key, opponent, x)
                axes[row][column].set_title(f"{title} (mean of {SMOOTH})")
                axes[row][column].set_xlabel(label)
        if any(p.get("promoted") for p in self.points):
            axes[0][-1].plot([], [], "*", color="gray", markersize=10, label="promoted")
        axes[0][-1].legend(fontsize=7, loc="lower right")
        save_figure(figure, png)

    def _draw(self, ax: Any, key: str, opponent: str | None, x: str) -> None:
        def measure(point: dict[str, Any]) -> dict[str, float]:
            found = point.get(key, {})
            return found.get(opponent, {}) if opponent is not None else found

        for net in sorted({n for p in self.points for n in measure(p)}):
            seen = [p for p in self.points if net in measure(p)]
            xs = [p.get(x, 0) for p in seen]
            ys = np.array([measure(p)[net] for p in seen])
            smooth = np.convolve(ys, np.ones(SMOOTH), "valid") / SMOOTH if len(ys) >= SMOOTH else ys
            (line,) = ax.plot(xs[len(xs) - len(smooth) :], smooth, label=net)
            # a new generation: the batch whose candidate the gate promoted, as measured
            new = [(px, y) for px, y, p in zip(xs, ys, seen) if _promoted(p, net)]
            if new:
                ax.plot(*zip(*new), "*", color=line.get_color(), markersize=10)
        ax.set_ylim(-2, 102)
        ax.grid(alpha=0.3)


def _promoted(point: dict[str, Any], net: str) -> bool:
    """Whether the gate promoted `net` at `point`: the main job names the networks it
    promoted, self-play's one candidate says yes or no."""
    promoted = point.get("promoted", ())
    return promoted is True or (isinstance(promoted, list) and net in promoted)
