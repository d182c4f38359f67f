"""`solver`: perfect play in Kalah, from the exact search of `mancala.solver`.

It plays a move of the position's exact value (the final store difference with perfect
play from both sides), ties broken at random by its seed. Kalah only; the endgame
database of the board size and capture rule is loaded from <repo>/cache/, or built there
on first use (Kalah(6,*): about two minutes, with a progress line). One `Solver` per rule
set is shared by every solver player of the process, transposition table included.
"""

from __future__ import annotations

from mancala.ai.base import Player, require_moves
from mancala.game_state import GameState
from mancala.solver import (
    CACHE_DIR,
    Solver,
    cache_path,
    check_solvable,
    default_max_seeds,
    header_matches,
)

_SOLVERS: dict[tuple[int, bool, int], Solver] = {}


def shared_solver(state: GameState) -> Solver:
    """The process's solver for the board size, capture rule and seeds of `state`."""
    n = default_max_seeds(state.houses, 2 * state.houses * state.seeds)
    key = (state.houses, state.empty_capture, n)
    if key not in _SOLVERS:
        _SOLVERS[key] = Solver(state.houses, state.empty_capture, n)
    return _SOLVERS[key]


def database_ready(houses: int = 6, empty_capture: bool = False) -> bool:
    """True when the endgame database of Kalah(houses) is already cached (header check)."""
    n = default_max_seeds(houses)
    return header_matches(cache_path(CACHE_DIR, houses, n, empty_capture), houses, n, empty_capture)


class PerfectPlayer(Player):
    """A value-optimal move; among equal moves a random one (seeded)."""

    def _solver(self, state: GameState) -> Solver:
        check_solvable(state)
        return shared_solver(state)

    def choose_move(self, state: GameState) -> int:
        require_moves(state)
        best = self._solver(state).solve(state, all_moves=False)["best"]
        return self.rng.choice(sorted(best))

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: value}, "best", "nodes", "seconds"}: exact final store
        differences for the player to move."""
        require_moves(state)
        return self._solver(state).solve(state)
