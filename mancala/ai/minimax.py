"""`minimax[:depth]` / `minimax:t=SECONDS`: alpha-beta with extra turns, a transposition
table, move ordering and iterative deepening.

Values are always from player 0's side (player 0 maximises, player 1 minimises), and
whose turn it is comes from the position after each move, never from alternation: an
extra turn is the same player moving again. The default evaluation (the store
difference, exact at the end of the game) runs inside numba (the sowing games' kernel,
`mancala.games.sowing.search`); any Python callable
`evaluate(state) -> float` (player 0's view) can replace it, e.g. a network; that path
runs in Python and is slower. A game that is not sown is searched with the game's
evaluator under the same name, depth, seconds and limits: by the game's own numba
alpha-beta where it has one (`mancala.games.fast_search`; Tak:
`mancala.games.tak.search`), else by the generic alpha-beta of
`mancala.ai.search_generic`.

Every search keeps to its `Limits`: a deadline of `limits.seconds` a call (a search
stopped by it returns the values of the deepest depth it finished, so a fixed depth on a
big board comes back at the cap) and a transposition table of at most `limits.memory`
bytes.

`evaluate(state)` returns {"value": v, "moves": {move: value}, "depth": d, "nodes": n}:
v is the value of the position for the player to move (seeds ahead at the horizon),
"moves" the value of each legal move for the player to move.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from functools import cached_property
from typing import Any

import numpy as np

from mancala.ai.base import is_sowing, require_moves
from mancala.ai.limits import MAX_DEPTH, REGISTRY_LIMITS, Limits
from mancala.ai.search_generic import AlphaBeta
from mancala.ai.search_player import MoveValueSearch
from mancala.core.deadline import Deadline
from mancala.core.tables import table_bits
from mancala.game_state import GameState
from mancala.games import fast_search
from mancala.games.sowing import engine
from mancala.games.sowing.search import (
    TT_BITS,
    TT_ENTRY_BYTES,
    new_table,
    root,
    scratch,
    warm_up,
)


class Minimax(MoveValueSearch):
    """Alpha-beta to `depth` plies, or iterative deepening within `seconds` a move. A game's
    fast search takes its `evaluation` (Tak: "fitted" weights, "hand", or the weights)."""

    def __init__(
        self,
        seed: int | None = None,
        evaluate: Callable[[GameState], float] | None = None,
        depth: int | None = None,
        seconds: float | None = None,
        limits: Limits = REGISTRY_LIMITS,
        evaluation: str | np.ndarray = "fitted",
    ) -> None:
        super().__init__(seed, evaluate, depth, seconds, limits)
        self.evaluation = evaluation
        self.tt = new_table(table_bits(limits.memory, TT_ENTRY_BYTES, TT_BITS))
        self._fast: dict[str, Any] = {}  # game -> its fast search (None: the generic one)
        if evaluate is None:
            warm_up()

    def _deadline(self) -> Deadline:
        """When this move's search stops: its own time, or the limits' cap if sooner."""
        return Deadline(min(self.seconds or float("inf"), self.limits.seconds))

    # ----- the numba path --------------------------------------------------------------

    def _values(self, state: GameState, exact: bool) -> np.ndarray:
        board, player, rules = engine.to_arrays(state)
        boards, orders = scratch(board, state.houses, MAX_DEPTH)
        values = np.empty(state.houses, np.int64)
        best_values = values.copy()
        counter = np.array([0, 2**62], np.int64)
        deadline = self._deadline()
        start = time.perf_counter()
        self.nodes, self.reached = 0, 0
        for depth in range(1, (self.depth or MAX_DEPTH) + 1):
            elapsed = time.perf_counter() - start
            if self.seconds is not None and depth > 1 and deadline.remaining() <= elapsed / 2:
                break  # the next depth would not finish in time
            # depth 1 always finishes, so that there is a move to give
            with deadline.stopping(counter) if depth > 1 else nullcontext():
                root(board, player, depth, rules, self.tt, counter, exact, values, boards, orders)
            if counter[0] > counter[1]:
                break
            best_values[:] = values
            self.reached = depth
        self.nodes = int(counter[0])
        return best_values

    # ----- the Python path (any evaluation callable) -----------------------------------

    def _py_search(self, state, depth, alpha, beta, table):
        self.nodes += 1
        if state.is_over():
            s0, s1 = state.scores()
            return float(s0 - s1)
        if depth == 0 or self._py_deadline.expired():
            return float(self.evaluator(state))
        key = (state.board, state.player)
        hit = table.get(key)
        if hit is not None and hit[0] >= depth:
            return hit[1]
        maximise = state.player == 0
        best = -float("inf") if maximise else float("inf")
        for move in reversed(state.legal_moves()):
            v = self._py_search(state.play(move), depth - 1, alpha, beta, table)
            if maximise:
                best, alpha = max(best, v), max(alpha, v)
            else:
                best, beta = min(best, v), min(beta, v)
            if alpha >= beta:
                return best  # a bound: not stored
        table[key] = (depth, best)
        return best

    def _py_values(self, state: GameState) -> np.ndarray:
        self._py_deadline = self._deadline()
        self.nodes = 0
        values = np.full(state.houses, -np.inf)
        for depth in range(1, (self.depth or MAX_DEPTH) + 1):
            table: dict = {}
            trial = np.full(state.houses, -np.inf)
            for move in state.legal_moves():
                trial[move] = self._py_search(state.play(move), depth - 1, -np.inf, np.inf, table)
            if self._py_deadline.expired() and depth > 1:
                break
            values, self.reached = trial, depth
        return values

    # ----- the player ------------------------------------------------------------------

    @cached_property
    def _generic(self) -> AlphaBeta:
        """The generic alpha-beta, for games without the sowing kernels."""
        return AlphaBeta(self.rng.randrange(2**32), None, self.depth, self.seconds, self.limits)

    def _unsown_values(self, state: GameState, exact: bool) -> dict[int, float]:
        """Move values of a game that is not sown, in the searched order (the first best
        is the choice): the game's fast search, else the generic one."""
        if state.game not in self._fast:
            search = fast_search(state.game)
            made = search(self.limits.memory, self.evaluation) if search else None
            self._fast[state.game] = made
        fast = self._fast[state.game]
        if fast is None:
            values = self._generic._move_values(state, exact)
            self.nodes, self.reached = self._generic.nodes, self._generic.reached
            return values
        seed = self.rng.randrange(2**32)
        values, self.reached, self.nodes = fast.move_values(
            state, self.depth, self.seconds, self.limits.seconds, exact, seed
        )
        return values

    def _move_values(self, state: GameState, exact: bool) -> dict[int, float]:
        if not is_sowing(state):
            return self._unsown_values(state, exact)
        moves = require_moves(state)
        raw = self._values(state, exact) if self.evaluator is None else self._py_values(state)
        sign = 1 if state.player == 0 else -1
        return {m: float(sign * raw[m]) for m in moves}

    def choose_move(self, state: GameState) -> int:
        values = self._move_values(state, exact=False)
        if not is_sowing(state):  # the first best in the searched order: the others may
            return max(values, key=values.__getitem__)  # be bounds equal to it
        best = max(values.values())
        return self.rng.choice([m for m, v in values.items() if v == best])
