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
>>> folder = tempfile.TemporaryDirectory()
>>> path = Path(folder.name) / "solve.json"
>>> solver = Solver(houses=3, max_seeds=6, cache_dir=None, progress=False)
>>> record = solve_every_move(solver, GameState.new(houses=3, seeds=2), path, out=None)
>>> record["value"], record["best"], {m: e["value"] for m, e in sorted(record["moves"].items())}
(4, [1], {'0': -8, '1': 4, '2': 0})
>>> folder.cleanup()
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
from mancala.games.sowing.solver.rules import store_lead
from mancala.games.sowing.solver.solver import OutOfBudget, Solver

FORMAT = "mancala-kalah-solve"
VERSION = 1
EVERY = 15.0  # seconds between progress lines
UNKNOWN = (-(10**6), 10**6)  # the bounds of a move before its first search

Guess = Callable[[GameState], float]  # a move's likely value (final store difference)


def _rules(empty_capture: bool) -> str:
    return "kalah-empty-capture" if empty_capture else "kalah"


def _identity(state: GameState) -> dict[str, Any]:
    """What a record must match to be resumed: the rules and the position."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": _rules(state.empty_capture),
        "houses": state.houses,
        "seeds": state.seeds,
        "board": [int(c) for c in state.board],
        "player": state.player,
    }


def _state_of(record: dict[str, Any]) -> GameState:
    """The position a record names (what `_identity` wrote); KeyError, TypeError or
    ValueError when it names none."""
    return GameState.new(
        houses=record["houses"],
        seeds=record["seeds"],
        board=tuple(record["board"]),
        player=record["player"],
        empty_capture=record["rules"] == _rules(empty_capture=True),
    )


def _is_record_of(record: Any, state: GameState) -> bool:
    return isinstance(record, dict) and all(record.get(k) == v for k, v in _identity(state).items())


def load_record(path: Path, state: GameState) -> dict[str, Any]:
    """The record at `path` for `state`, or a new one if there is no file; ValueError if
    the file is not a record of this position and these rules."""
    if not path.exists():
        return {**_identity(state), "moves": {}, "nodes": 0, "seconds": 0.0, "peak_memory_mb": 0}
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{path} is not a readable solve record ({error}); move it away") from None
    if not _is_record_of(record, state):
        raise ValueError(
            f"{path} is not a solve record of this position and these rules; "
            "give another file or move it away"
        )
    return record


def proved_in_records(folder: Path) -> dict[GameState, dict[str, Any]]:
    """The positions whose every move a record in `folder` proves: the values as
    `Solver.solve` gives them, with the record's nodes and seconds. A file that is not a
    readable record is skipped: it proves nothing."""
    proved = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            record = json.loads(path.read_text())
            state = _state_of(record)
            moves = {int(m): entry["value"] for m, entry in record["moves"].items()}
        except (OSError, ValueError, KeyError, TypeError):
            continue
        legal = state.legal_moves()
        if _is_record_of(record, state) and legal and sorted(moves) == legal:
            entries = record["moves"].values()
            proved[state] = {
                "moves": moves,
                "nodes": sum(entry.get("nodes", 0) for entry in entries),
                "seconds": sum(entry.get("seconds", 0.0) for entry in entries),
                "record": path,
            }
    return proved


def _peak_memory_mb() -> int:
    """The process's peak resident memory so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


class _Campaign:
    """The moves' proofs, run by worker threads (a solver each) while the caller's thread
    reports. Once one move's value B is proved, each other move is first tested with one
    null-window search (is it above B?), so the position's value is known early; then
    every move's exact value follows, the least promising first."""

    def __init__(
        self, solvers: list[Solver], state: GameState, path: Path, guess: Guess | None
    ) -> None:
        self.solvers, self.state, self.path, self.guess = solvers, state, path, guess
        self.record = load_record(path, state)
        self.began = time.perf_counter()
        self.seconds0, self.nodes0 = self.record["seconds"], self.record["nodes"]
        self.solver_nodes0 = [solver.nodes for solver in solvers]
        self.bounds = _bounds_in_progress(self.record)  # move -> (lower, upper), unproved
        self.busy: set[int] = set()  # the moves being searched now
        self.tested: set[int] = set()
        self.lock = threading.Lock()  # the record, the bounds and the queue of moves
        self.queue: list[tuple[int, float]] = []  # unproved moves and their guesses
        self.errors: list[BaseException] = []
        # move -> (child, base, sign): the move's value is base + sign * the child's
        # (the opponent's view: -1; the mover again: 1; the game over: 0, just base)
        offset = store_lead(state)
        self.children = {
            move: (child, offset + gain, {0: -1, 1: 1, 2: 0}[code])
            for move, gain, code, child in solvers[0].children(state)
        }

    def nodes(self) -> int:
        now = sum(s.nodes_now() - n0 for s, n0 in zip(self.solvers, self.solver_nodes0))
        return self.nodes0 + now

    def save(self) -> None:
        with self.lock:
            self.record["nodes"] = self.nodes()
            self.record["seconds"] = round(self.seconds0 + time.perf_counter() - self.began, 1)
            peak = max(self.record["peak_memory_mb"], _peak_memory_mb())
            self.record["peak_memory_mb"] = peak
            self.record.pop("in_progress", None)
            if self.bounds:
                self.record["in_progress"] = {
                    str(m): {"lower": lo, "upper": hi} for m, (lo, hi) in self.bounds.items()
                }
            write_json(self.path, self.record)

    def plan(self) -> None:
        """Queue each unproved move with its guessed value, the likeliest best first."""
        for move in self.state.legal_moves():
            if str(move) in self.record["moves"]:
                continue
            child = self.state.play(move)
            g = 0.0 if self.guess is None else self.guess(child)
            self.queue.append((move, g if child.player == self.state.player else -g))
        self.queue.sort(key=lambda mg: -mg[1])

    def _next(self) -> tuple[str, int, float] | None:
        """The next job ("test" or "exact", move, guess), under the lock; None: done."""
        best = self._best_proved()
        free = [(m, g) for m, g in self.queue if m not in self.busy]
        for move, guess in free:
            if best is not None and move not in self.tested:
                self.tested.add(move)
                if self.bounds.get(move, UNKNOWN)[1] > best:
                    self.busy.add(move)
                    return "test", move, guess
        if not free:
            return None
        # the likeliest best first, since its value bounds the tests; after it the least
        # promising, whose proofs are the longest: begun early, none of them ends last
        first = best is None and not self.busy
        move, guess = free[0] if first else free[-1]
        self.queue.remove((move, guess))
        self.busy.add(move)
        return "exact", move, guess

    def run(self, solver: Solver) -> None:
        """One worker: the next job with `solver` until none is left."""
        try:
            while True:
                with self.lock:
                    job = self._next()
                if job is None:
                    return
                kind, move, guess = job
                began, nodes = time.perf_counter(), solver.nodes_now()
                if kind == "test":
                    self._test(solver, move)
                else:
                    value = self._prove(solver, move, guess)
                with self.lock:
                    self.busy.discard(move)
                    if kind == "exact":
                        self.record["moves"][str(move)] = {
                            "value": int(value),
                            "nodes": solver.nodes_now() - nodes,
                            "seconds": round(time.perf_counter() - began, 1),
                        }
                        self.bounds.pop(move, None)
                    self._finish()
                self.save()
        except OutOfBudget:
            pass  # stopped: what was proved is saved
        except BaseException as error:  # reported by the caller's thread
            self.errors.append(error)

    def _narrow(self, move: int, lo: int, hi: int) -> None:
        """Record bounds of `move` (in the move's units) found by a search."""
        with self.lock:
            old_lo, old_hi = self.bounds.get(move, UNKNOWN)
            self.bounds[move] = (max(lo, old_lo), min(hi, old_hi))
        self.save()

    def _test(self, solver: Solver, move: int) -> None:
        """One null-window search: is `move` better than the best proved so far?"""
        child, base, sign = self.children[move]
        best = self._best_proved()
        if sign == 0 or best is None:
            return
        # move >= best + 1: the child >= best + 1 - base (sign 1), <= base - best - 1 (-1)
        beta = best + 1 - base if sign == 1 else base - best
        lo, hi = solver.test(child, beta)
        self._narrow(move, *_in_move_units(base, sign, lo, hi))

    def _prove(self, solver: Solver, move: int, guess: float) -> int:
        """The exact value of `move`, by MTD(f) from `guess` and the saved bounds."""
        child, base, sign = self.children[move]
        if sign == 0:  # the game ends
            return base
        lo, hi = self.bounds.setdefault(move, UNKNOWN)
        bounds = tuple(sorted((sign * (lo - base), sign * (hi - base))))

        def on_pass(child_lo: int, child_hi: int) -> None:
            self._narrow(move, *_in_move_units(base, sign, child_lo, child_hi))

        value = solver.value(child, sign * round(guess - base), bounds, on_pass)
        return base + sign * value

    def _best_proved(self) -> int | None:
        values = [e["value"] for e in self.record["moves"].values()]
        return max(values) if values else None

    def _finish(self) -> None:
        """The position's value, once every move is proved or bounded below the best
        proved one; the best moves once every move is proved."""
        best = self._best_proved()
        moves = self.state.legal_moves()
        if best is not None and all(
            str(m) in self.record["moves"] or self.bounds.get(m, UNKNOWN)[1] <= best for m in moves
        ):
            self.record["value"] = best
        if all(str(m) in self.record["moves"] for m in moves):
            self.record["best"] = sorted(
                int(m) for m, e in self.record["moves"].items() if e["value"] == best
            )

    def line(self) -> str:
        done = len(self.record["moves"])
        total = len(self.state.legal_moves())
        elapsed = time.perf_counter() - self.began
        nodes = self.nodes()
        rate = (nodes - self.nodes0) / max(elapsed, 1e-9) / 1e6
        with self.lock:
            spans = [_span(m, *self.bounds.get(m, UNKNOWN)) for m in sorted(self.busy)]
            value = self.record.get("value")
        known = "" if value is None else f"; the position's value {value:+d}"
        where = "".join(f"; {span}" for span in spans)
        return (
            f"solve: {done}/{total} moves proved{known}{where}; {nodes:,} nodes, "
            f"{rate:.2f} M/s, {elapsed:.0f} s, peak {_peak_memory_mb():,} MiB"
        )


def _span(move: int, lo: int, hi: int) -> str:
    """What is known of a move's value, for a progress line."""
    known = "unknown" if (lo, hi) == UNKNOWN else f"in [{lo:+d}, {hi:+d}]"
    return f"move {move} ({house_label(move)}) {known}"


def _in_move_units(base: int, sign: int, lo: int, hi: int) -> tuple[int, int]:
    """Bounds of a child's value as bounds of the move's (base + sign * child)."""
    a, b = base + sign * lo, base + sign * hi
    return min(a, b), max(a, b)


def _bounds_in_progress(record: dict[str, Any]) -> dict[int, tuple[int, int]]:
    """The saved bounds of the moves whose proof was under way: {move: (lower, upper)}.

    >>> _bounds_in_progress({"in_progress": {"1": {"lower": 8, "upper": 60}}})
    {1: (8, 60)}
    """
    saved = record.get("in_progress", {})
    return {int(m): (b["lower"], b["upper"]) for m, b in saved.items()}


def solve_every_move(
    solver: Solver,
    state: GameState,
    path: Path | str,
    guess: Guess | None = None,
    every: float = EVERY,
    out: TextIO | None = sys.stderr,
    workers: int = 1,
) -> dict[str, Any]:
    """Prove the value of every move of `state`, saving each to the record at `path` as
    it is proved (and resuming from what is there); the record. guess(child): a move's
    likely value, where its MTD(f) starts. `workers` threads prove moves side by side,
    each with a table of its own (`Solver.twin`). A progress line goes to `out` every
    `every` seconds. Ctrl+C stops the searches at once; the record keeps every finished
    move and the bounds of those in progress."""
    solvers = [solver] + [solver.twin() for _ in range(workers - 1)]
    campaign = _Campaign(solvers, state, Path(path), guess)
    campaign.plan()
    campaign.save()  # the record is there from the start
    threads = [
        threading.Thread(target=campaign.run, args=(s,), name="solve", daemon=True) for s in solvers
    ]
    for thread in threads:
        thread.start()
    try:
        while any(thread.is_alive() for thread in threads):
            until = time.monotonic() + every
            for thread in threads:
                thread.join(max(0.0, until - time.monotonic()))
            if any(thread.is_alive() for thread in threads) and out is not None:
                print(campaign.line(), file=out, flush=True)
    except KeyboardInterrupt:
        for s in solvers:
            s.stop()
        for thread in threads:
            thread.join()
        campaign.save()
        raise
    if campaign.errors:
        raise campaign.errors[0]
    campaign.save()
    if out is not None:
        print(campaign.line(), file=out, flush=True)
    return campaign.record
