"""A long solve that survives being stopped: the exact value of every move of a Kalah
position, each saved to a JSON record as soon as it is proved, with the MTD(f) bounds of
the move in progress, and a progress line at least every `every` seconds.

Run again with the same record, it goes on where it stopped: proved moves are skipped
and the move in progress starts from its saved bounds. A record of another position or
of other rules is refused, never overwritten. Values are final store differences for the
player to move, as `Solver.solve` gives them.

>>> import tempfile
>>> from mancala.game_state import GameState
>>> from mancala.games.sowing.solver.solver import Solver
>>> path = Path(tempfile.mkdtemp()) / "solve.json"
>>> solver = Solver(houses=3, max_seeds=6, cache_dir=None, progress=False)
>>> record = solve_every_move(solver, GameState.new(houses=3, seeds=2), path, out=None)
>>> record["value"], record["best"], {m: e["value"] for m, e in record["moves"].items()}
(4, [1], {'0': -8, '1': 4, '2': 0})
"""

from __future__ import annotations

import json
import resource
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from mancala.core.atomic import write_json
from mancala.game_state import GameState
from mancala.games.sowing.drawing import house_label
from mancala.games.sowing.solver.rules import apply_move, relative_board, store_lead, swap_into
from mancala.games.sowing.solver.solver import OutOfBudget, Solver

FORMAT = "mancala-kalah-solve"
VERSION = 1
EVERY = 15.0  # seconds between progress lines
UNKNOWN = (-(10**6), 10**6)  # the bounds of a move before its first search

Guess = Callable[[GameState], float]  # a move's likely value (final store difference)


def _identity(state: GameState) -> dict[str, Any]:
    """What a record must match to be resumed: the rules and the position."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": "kalah-empty-capture" if state.empty_capture else "kalah",
        "houses": state.houses,
        "seeds": state.seeds,
        "board": [int(c) for c in state.board],
        "player": state.player,
    }


def load_record(path: Path, state: GameState) -> dict[str, Any]:
    """The record at `path` for `state`, or a new one if there is no file; ValueError if
    the file is not a record of this position and these rules."""
    identity = _identity(state)
    if not path.exists():
        return {**identity, "moves": {}, "nodes": 0, "seconds": 0.0, "peak_memory_mb": 0}
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{path} is not a readable solve record ({error}); move it away") from None
    if not isinstance(record, dict) or any(record.get(k) != v for k, v in identity.items()):
        raise ValueError(
            f"{path} is not a solve record of this position and these rules; "
            "give another file or move it away"
        )
    return record


def _peak_memory_mb() -> int:
    """The process's peak resident memory so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


class _Campaign:
    """The moves' proofs, run in a worker thread while the caller's thread reports."""

    def __init__(self, solver: Solver, state: GameState, path: Path, guess: Guess | None):
        self.solver, self.state, self.path, self.guess = solver, state, path, guess
        self.record = load_record(path, state)
        self.began = time.perf_counter()
        self.seconds0, self.nodes0 = self.record["seconds"], self.record["nodes"]
        self.solver_nodes0 = solver.nodes
        self.current: tuple[int, int, int] | None = None  # move, lower, upper
        self.error: BaseException | None = None

    def nodes(self) -> int:
        return self.nodes0 + self.solver.nodes_now() - self.solver_nodes0

    def save(self) -> None:
        self.record["nodes"] = self.nodes()
        self.record["seconds"] = round(self.seconds0 + time.perf_counter() - self.began, 1)
        self.record["peak_memory_mb"] = max(self.record["peak_memory_mb"], _peak_memory_mb())
        if self.current is None:
            self.record.pop("in_progress", None)
        else:
            move, lo, hi = self.current
            self.record["in_progress"] = {"move": move, "lower": lo, "upper": hi}
        write_json(self.path, self.record)

    def run(self) -> None:
        try:
            self._prove_moves()
        except OutOfBudget:
            pass  # stopped: what was proved is saved
        except BaseException as error:  # reported by the caller's thread
            self.error = error

    def _moves(self) -> list[tuple[int, float]]:
        """(move, guessed value) for each unproved move, the likeliest best first."""
        out = []
        for move in self.state.legal_moves():
            if str(move) in self.record["moves"]:
                continue
            child = self.state.play(move)
            g = 0.0 if self.guess is None else self.guess(child)
            out.append((move, g if child.player == self.state.player else -g))
        return sorted(out, key=lambda mg: -mg[1])

    def _prove_moves(self) -> None:
        for move, guess in self._moves():
            began, nodes = time.perf_counter(), self.nodes()
            value = self._prove(move, guess)
            self.record["moves"][str(move)] = {
                "value": int(value),
                "nodes": self.nodes() - nodes,
                "seconds": round(time.perf_counter() - began, 1),
            }
            self.current = None
            self._finish()
            self.save()

    def _prove(self, move: int, guess: float) -> int:
        """The exact value of `move`, by MTD(f) from `guess` and the saved bounds."""
        h = self.state.houses
        child = relative_board(self.state)
        gain, code = apply_move(child, move, h, self.state.empty_capture)
        base = store_lead(self.state) + int(gain)
        if code == 2:  # the game ends
            return base
        sign = 1 if code == 1 else -1  # the move's value is base + sign * the child's
        if code == 0:  # the opponent's view
            swapped = child.copy()
            swap_into(child, swapped, h)
            child = swapped

        def move_units(a: int, b: int) -> tuple[int, int]:
            return tuple(sorted((base + sign * a, base + sign * b)))

        known = self.record.get("in_progress", {})
        lo, hi = (known["lower"], known["upper"]) if known.get("move") == move else UNKNOWN
        self.current = (move, lo, hi)

        def on_pass(child_lo: int, child_hi: int) -> None:
            self.current = (move, *move_units(child_lo, child_hi))
            self.save()

        bounds = tuple(sorted((sign * (lo - base), sign * (hi - base))))
        value = self.solver.value(child, sign * round(guess - base), bounds, on_pass)
        return base + sign * value

    def _finish(self) -> None:
        """The position's value and best moves, once every move is proved."""
        values = {int(m): e["value"] for m, e in self.record["moves"].items()}
        if set(values) == set(self.state.legal_moves()):
            best = max(values.values())
            self.record["value"] = best
            self.record["best"] = sorted(m for m, v in values.items() if v == best)

    def line(self) -> str:
        done = len(self.record["moves"])
        total = len(self.state.legal_moves())
        elapsed = time.perf_counter() - self.began
        nodes = self.nodes()
        rate = (nodes - self.nodes0) / max(elapsed, 1e-9) / 1e6
        where = ""
        if self.current is not None:
            move, lo, hi = self.current
            span = "unknown" if (lo, hi) == UNKNOWN else f"in [{lo:+d}, {hi:+d}]"
            where = f"; move {move} ({house_label(move)}) {span}"
        return (
            f"solve: {done}/{total} moves proved{where}; {nodes:,} nodes, {rate:.2f} M/s, "
            f"{elapsed:.0f} s, peak {_peak_memory_mb():,} MiB"
        )


def solve_every_move(
    solver: Solver,
    state: GameState,
    path: Path | str,
    guess: Guess | None = None,
    every: float = EVERY,
    out: TextIO | None = sys.stderr,
) -> dict[str, Any]:
    """Prove the value of every move of `state`, saving each to the record at `path` as
    it is proved (and resuming from what is there); the record. guess(child): a move's
    likely value, where its MTD(f) starts. A progress line goes to `out` every `every`
    seconds. Ctrl+C stops the search at once; the record keeps every finished move and
    the bounds of the one in progress."""
    path = Path(path)
    campaign = _Campaign(solver, state, path, guess)
    worker = threading.Thread(target=campaign.run, name="solve", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(every)
            if worker.is_alive() and out is not None:
                print(campaign.line(), file=out, flush=True)
    except KeyboardInterrupt:
        solver.stop()
        worker.join()
        campaign.save()
        raise
    if campaign.error is not None:
        raise campaign.error
    campaign.save()
    if out is not None:
        print(campaign.line(), file=out, flush=True)
    return campaign.record
