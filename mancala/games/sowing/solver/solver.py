"""Perfect play for Kalah: `Solver`, the exact search over the endgame database.

The value of a position is the final store difference from now on, for the player to
move: the seeds the mover will still gain minus those the opponent will, with both
playing perfectly. It depends only on the houses, so positions are seen from the mover's
side (a relative board, `rules`) and stores play no part. `Solver.solve(state)` adds the
stores back: the final store difference of the game. Boards with at most `max_seeds`
seeds are looked up in the endgame database (`database`); above it the value is found by
MTD(f): null-window searches (`search`) sharing one transposition table (`table`).

>>> from mancala.game_state import GameState
>>> solver = Solver(houses=3, max_seeds=6, cache_dir=None, progress=False)
>>> result = solver.solve(GameState.new(houses=3, seeds=2))
>>> result["value"], result["moves"], result["best"]
(4, {0: -8, 1: 4, 2: 0}, [1])
"""

from __future__ import annotations

import copy
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mancala.core.deadline import Deadline
from mancala.game_state import GameState
from mancala.games.sowing.solver.database import database, default_max_seeds
from mancala.games.sowing.solver.ranking import binomial_table, entries, rank
from mancala.games.sowing.solver.rules import (
    INF,
    apply_move,
    relative_board,
    store_lead,
    swap_into,
)
from mancala.games.sowing.solver.search import (
    null_window,
    scratch_arrays,
    scratch_plies,
    trivial_value,
)
from mancala.games.sowing.solver.table import TT_BITS, lower, new_table, probe, upper

NO_LIMIT = 1 << 62


def check_solvable(state: GameState) -> None:
    """ValueError unless `state` is a Kalah position the solver can search."""
    if not isinstance(state, GameState):
        raise ValueError(f"the solver needs a GameState, not {type(state).__name__}")
    if state.variant != "kalah":
        raise ValueError(
            f"the solver plays Kalah only; {state.variant!r} is not supported "
            "(Sungka's relay sowing does not fit its database)"
        )
    if entries(sum(state.board), state.houses) >= 1 << 63:
        raise ValueError(
            f"kalah({state.houses},{state.seeds}) is too big for the solver: its boards "
            "cannot be numbered in 64 bits (try fewer houses or seeds)"
        )


class OutOfBudget(RuntimeError):
    """The search would need more nodes than it was given (`Solver.solve(..., nodes=)`),
    or more time (`deadline=`)."""


class Solver:
    """Exact values of Kalah positions with `houses` houses under one capture rule.

    The endgame database (`max_seeds`, default `default_max_seeds`) is loaded from
    `cache_dir` or built there on first use ("default": $MANCALA_CACHE_DIR or <repo>/cache;
    None: built in memory only). The transposition table (2**tt_bits entries) persists
    between calls.
    """

    def __init__(
        self,
        houses: int = 6,
        empty_capture: bool = False,
        max_seeds: int | None = None,
        cache_dir: Path | str | None = "default",
        tt_bits: int = TT_BITS,
        progress: bool = True,
    ) -> None:
        if isinstance(houses, bool) or not isinstance(houses, int) or houses < 1:
            raise ValueError(f"houses must be a positive whole number, not {houses!r}")
        self.houses, self.empty_capture = houses, bool(empty_capture)
        self.max_seeds = default_max_seeds(houses) if max_seeds is None else max_seeds
        if self.max_seeds < 0:
            raise ValueError(f"max_seeds must be at least 0, not {self.max_seeds}")
        self.db, self.db_seconds = database(
            houses, self.max_seeds, self.empty_capture, cache_dir, progress
        )
        self.tt_bits, self.progress = tt_bits, progress
        self._binom_for = -1
        self._scratch: tuple[np.ndarray, ...] | None = None
        self.nodes = 0
        self.budget = NO_LIMIT  # nodes the searches may still visit (see `solve`)
        self.deadline = Deadline(None)  # when the searches stop (see `solve`)
        self.live = np.zeros(2, np.int64)  # the counter of the search running now
        self._stopped = False
        self._new_table()

    def _new_table(self) -> None:
        self.tt = new_table(self.tt_bits)

    def twin(self) -> Solver:
        """A solver of the same rules sharing this one's database, with a table and
        counters of its own: another thread may search with it at the same time."""
        twin = copy.copy(self)
        twin.nodes, twin.budget, twin.deadline = 0, NO_LIMIT, Deadline(None)
        twin.live, twin._stopped, twin._scratch = np.zeros(2, np.int64), False, None
        twin._new_table()
        return twin

    def forget(self) -> None:
        """Forget earlier searches: an empty transposition table, as when made."""
        self._new_table()
        self._scratch = None

    def binom_for(self, board: np.ndarray) -> np.ndarray:
        """The binomial table that ranks boards of up to `board`'s seeds."""
        total = int(board.sum())
        if self._binom_for < total:
            self.binom = binomial_table(max(total, self.max_seeds), 2 * self.houses)
            self._binom_for = total
        return self.binom

    def _arrays(self, total: int):
        """Per-ply scratch for a search from `total` seeds, as deep as a game can go."""
        plies = scratch_plies(self.houses, total, self.max_seeds)
        if self._scratch is None or len(self._scratch[0]) < plies:
            self._scratch = scratch_arrays(self.houses, plies)
        return self._scratch

    def _check(self, state: GameState) -> None:
        check_solvable(state)
        if state.houses != self.houses or state.empty_capture != self.empty_capture:
            raise ValueError(
                f"this solver is for Kalah with {self.houses} houses and "
                f"empty_capture={self.empty_capture}, not {state.houses} and "
                f"{state.empty_capture}"
            )

    def _trivial(self, board: np.ndarray) -> int:
        """The value of a board that is over or in the database, else -INF."""
        binom = self.binom_for(board)
        return int(trivial_value(board, self.houses, self.max_seeds, self.db, binom))

    def _bound(self, board: np.ndarray, beta: int) -> int:
        """One null-window search: a value >= beta (a lower bound) or < beta (upper)."""
        scratch = self._arrays(int(board.sum()))
        counter = self.live = np.array([0, self.budget], np.int64)
        if self._stopped:
            raise OutOfBudget("the search was stopped")
        args = (self.houses, self.empty_capture, self.max_seeds, self.db, self.binom, self.tt)
        with self.deadline.stopping(counter):
            g = null_window(board, beta, *args, counter, *scratch)
        self.live = np.zeros(2, np.int64)  # before the count moves to self.nodes
        self.nodes += int(counter[0])
        self.budget -= int(counter[0])
        if self.budget < 0 or counter[1] < 0:
            raise OutOfBudget(f"no exact value within the budget ({self.nodes:,} nodes)")
        return int(g)

    def nodes_now(self) -> int:
        """Nodes searched so far, the running search's included (any thread may ask)."""
        return self.nodes + int(self.live[0])

    def stop(self) -> None:
        """End the running search (from another thread): it raises OutOfBudget, as does
        every later search of this solver."""
        self._stopped = True
        self.live[1] = -1

    def _known_bounds(self, board: np.ndarray) -> tuple[int, int]:
        """The bounds of a board's value proved by earlier searches (or its seeds)."""
        n = int(board.sum())
        data = probe(rank(board, self.binom, 0), self.tt)
        if data < 0:
            return -n, n
        return max(-n, int(lower(data))), min(n, int(upper(data)))

    def value(
        self,
        board: np.ndarray,
        guess: int = 0,
        bounds: tuple[int, int] | None = None,
        on_pass: Callable[[int, int], None] | None = None,
    ) -> int:
        """The exact value of a relative board for the mover (seeds gained from now on),
        by MTD(f) from `guess`: null-window searches until the bounds meet. bounds: what
        is already known of the value; on_pass(lower, upper) is told the bounds after
        every search."""
        v = self._trivial(board)
        if v > -INF:
            return v
        lower_bound, upper_bound = self._known_bounds(board)
        if bounds is not None:
            lower_bound, upper_bound = max(lower_bound, bounds[0]), min(upper_bound, bounds[1])
        g = min(max(guess, lower_bound), upper_bound)
        began = time.perf_counter()
        while lower_bound < upper_bound:
            beta = g + 1 if g == lower_bound else g
            g = self._bound(board, beta)
            if g < beta:
                upper_bound = g
            else:
                lower_bound = g
            if on_pass is not None:
                on_pass(lower_bound, upper_bound)
            if self.progress and time.perf_counter() - began > 2:
                print(
                    f"MTD(f): value in [{lower_bound}, {upper_bound}] after "
                    f"{self.nodes:,} nodes, {time.perf_counter() - began:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        return g

    def at_least(self, board: np.ndarray, bound: int) -> bool:
        """Whether the value of a relative board is at least `bound`."""
        return self.test(board, bound)[0] >= bound

    def test(self, board: np.ndarray, beta: int) -> tuple[int, int]:
        """(lower, upper) bounds of the value of a relative board after one null-window
        search at `beta`: the lower one at least beta, or the upper one below it."""
        v = self._trivial(board)
        if v > -INF:
            return v, v
        lower_bound, upper_bound = self._known_bounds(board)
        g = self._bound(board, beta)
        if g >= beta:
            return max(lower_bound, g), upper_bound
        return lower_bound, min(upper_bound, g)

    def children(self, state: GameState):
        """(move, gain, code, child relative board) for each legal move."""
        board = relative_board(state)
        out = []
        for move in state.legal_moves():
            child = board.copy()
            gain, code = apply_move(child, move, self.houses, self.empty_capture)
            if code == 0:
                swapped = np.empty_like(child)
                swap_into(child, swapped, self.houses)
                child = swapped
            out.append((move, int(gain), int(code), child))
        return out

    def _move_value(self, gain: int, code: int, child: np.ndarray, guess: int) -> int:
        if code == 2:
            return gain
        if code == 1:
            return gain + self.value(child, guess - gain)
        return gain - self.value(child, gain - guess)

    def solve(
        self,
        state: GameState,
        all_moves: bool = True,
        nodes: int | None = None,
        guess: float = 0,
        deadline: Deadline | None = None,
    ) -> dict:
        """{"value", "moves": {move: value}, "best": [moves], "nodes", "seconds"}: final
        store differences for the mover. all_moves=False: "moves" holds the best only.
        nodes, deadline: raise OutOfBudget rather than search more nodes or longer.
        guess: where MTD(f) starts (a final store difference); a close one saves passes."""
        self._check(state)
        self.budget = NO_LIMIT if nodes is None else nodes
        self.deadline = deadline or Deadline(None)
        try:
            return self._solve(state, all_moves, round(guess))
        finally:
            self.budget = NO_LIMIT
            self.deadline = Deadline(None)

    def _solve(self, state: GameState, all_moves: bool, guess: int) -> dict:
        began, nodes = time.perf_counter(), self.nodes
        offset = store_lead(state)
        if state.is_over():
            return {"value": offset, "moves": {}, "best": [], "nodes": 0, "seconds": 0.0}
        children = self.children(state)
        values: dict[int, int] = {}
        guess = self.value(relative_board(state), guess - offset)
        for move, gain, code, child in children:
            if all_moves:
                values[move] = self._move_value(gain, code, child, guess)
            elif self._reaches(gain, code, child, guess):
                values[move] = guess
        best = max(values.values())
        return {
            "value": offset + best,
            "moves": {m: offset + v for m, v in values.items()},
            "best": [m for m, v in values.items() if v == best],
            "nodes": self.nodes - nodes,
            "seconds": time.perf_counter() - began,
        }

    def _reaches(self, gain: int, code: int, child: np.ndarray, target: int) -> bool:
        """Whether the move described reaches `target` (the position's value)."""
        if code == 2:
            return gain >= target
        if code == 1:
            return self.at_least(child, target - gain)
        return not self.at_least(child, gain - target + 1)
