"""`solver` / `solver:t=SECONDS`: perfect play in Kalah, from the exact search of
`mancala.solver`.

It plays a move of the position's exact value (the final store difference with perfect
play from both sides), ties broken at random by its seed. It looks first in the opening
book of `mancala.solver_book` (the game's first two turns, where proofs take seconds
to a minute). Plain `solver` then searches as long as it takes (MTD(f) starting from
minimax:10's value); `solver:t=0.25` gives up the exact search after about that many
seconds' worth of nodes and plays `minimax:t=SECONDS`'s move instead, so it is perfect
wherever it can prove a value in time (the tournament's quick form).

Kalah only. The endgame database of the board size and capture rule is loaded from the
cache (<repo>/cache/, or $MANCALA_CACHE_DIR), or built there on first use (Kalah(6,*):
about two minutes, with a progress line). One `Solver` per rule set is shared by every
solver player of the process, transposition table included.
"""

from __future__ import annotations

import time

from mancala.ai.base import Player, require_moves
from mancala.ai.minimax import Minimax
from mancala.game_state import GameState
from mancala.solver import (
    OutOfBudget,
    Solver,
    cache_path,
    check_solvable,
    default_cache_dir,
    default_max_seeds,
    header_matches,
)
from mancala.solver_book import GUESS_DEPTH, book_key, first_guess, load_book

NODES_PER_SECOND = 600_000  # a first guess of the search's speed; measured as it plays
_SOLVERS: dict[tuple[int, bool, int], Solver] = {}
_BOOKS: dict[tuple[int, int, bool], dict] = {}


def shared_solver(state: GameState) -> Solver:
    """The process's solver for the board size, capture rule and seeds of `state`."""
    n = default_max_seeds(state.houses, 2 * state.houses * state.seeds)
    key = (state.houses, state.empty_capture, n)
    if key not in _SOLVERS:
        _SOLVERS[key] = Solver(state.houses, state.empty_capture, n)
    return _SOLVERS[key]


def shared_book(state: GameState) -> dict:
    """The opening book of `state`'s board, seeds and rule ({} if none ships)."""
    key = (state.houses, state.seeds, state.empty_capture)
    if key not in _BOOKS:
        start = GameState.new("kalah", houses=key[0], seeds=key[1], empty_capture=key[2])
        _BOOKS[key] = load_book(start)
    return _BOOKS[key]


def database_ready(houses: int = 6, empty_capture: bool = False) -> bool:
    """True when the endgame database of Kalah(houses) is already cached (header check)."""
    n = default_max_seeds(houses)
    path = cache_path(default_cache_dir(), houses, n, empty_capture)
    return header_matches(path, houses, n, empty_capture)


def parse_param(param: str | None) -> float | None:
    """None -> None (no limit); 't=0.5' -> 0.5.

    >>> parse_param("t=0.25")
    0.25
    >>> parse_param("8")
    Traceback (most recent call last):
    ...
    ValueError: solver takes t=SECONDS (a time limit per move), not '8'
    """
    if param is None:
        return None
    try:
        seconds = float(param[2:]) if param.startswith("t=") else -1.0
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise ValueError(f"solver takes t=SECONDS (a time limit per move), not {param!r}")
    return seconds


class PerfectPlayer(Player):
    """A value-optimal move; among equal moves a random one (seeded). With a time limit,
    minimax's move where the exact search does not finish in time."""

    def __init__(
        self, seed: int | None = None, param: str | None = None, solver: Solver | None = None
    ) -> None:
        super().__init__(seed)
        self.seconds = parse_param(param)
        self.solver = solver  # None: the shared solver of each position's rules
        self.fallback: Minimax | None = None
        self.guesser: Minimax | None = None
        self.rate = NODES_PER_SECOND

    def _solver(self, state: GameState) -> Solver:
        check_solvable(state)
        return self.solver or shared_solver(state)

    def choose_move(self, state: GameState) -> int:
        require_moves(state)
        solver = self._solver(state)
        entry = shared_book(state).get(book_key(state))
        if entry is not None:
            return self.rng.choice(entry["best"])
        if self.guesser is None:
            self.guesser = Minimax(seed=0, depth=GUESS_DEPTH)
        guess = first_guess(state, self.guesser)
        if self.seconds is None:
            return self.rng.choice(sorted(solver.solve(state, False, guess=guess)["best"]))
        began, nodes = time.perf_counter(), solver.nodes
        try:
            best = solver.solve(state, False, int(self.seconds * self.rate), guess)
            return self.rng.choice(sorted(best["best"]))
        except OutOfBudget:
            spent = time.perf_counter() - began
            self.rate = 0.5 * self.rate + 0.5 * (solver.nodes - nodes) / max(spent, 1e-3)
        if self.fallback is None:
            self.fallback = Minimax(seed=self.rng.randrange(1 << 30), seconds=self.seconds)
        return self.fallback.choose_move(state)

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: value}, "best", "nodes", "seconds"}: exact final store
        differences for the player to move."""
        require_moves(state)
        return self._solver(state).solve(state)
