"""`solver` / `solver:t=SECONDS`: perfect play in Kalah, from the exact search of
`mancala.games.sowing.solver`.

It plays a move of the position's exact value (the final store difference with perfect
play from both sides), ties broken at random by its seed. It looks first in the opening
book of `mancala.games.sowing.solver.book` (the game's first two turns, where proofs take seconds
to a minute). Then it searches exactly (MTD(f) starting from minimax:10's value) until
a deadline, and where the proof is not done by then plays minimax's move instead, so it
is perfect wherever it can prove a value in time. `solver:t=0.25` gives the exact search
0.25 s and minimax as long again (the tournament's quick form); plain `solver` gives
each half of its limits' seconds (`mancala.ai.limits`: an hour a move by default, so in
practice as long as it takes). A move never takes longer than the limits' seconds.

Kalah only. The endgame database of the board size and capture rule is the largest of
those rules in the cache (<repo>/cache/, or $MANCALA_CACHE_DIR; `mancala solve database
--max-seeds 24` makes a bigger one), mapped from its file so that the processes of a
machine share it, or built there on first use at the default size (Kalah(6,*): about
two minutes, with a progress line) unless the limits forbid building. One `Solver`
per rule set is shared by every solver player of the process, transposition table
included, and one search runs at a time (a lock). A board whose search scratch would
not fit in the limits' memory is refused with a ValueError.
"""

from __future__ import annotations

import threading

from mancala.ai.base import Player, require_moves
from mancala.ai.limits import MAX_SECONDS, REGISTRY_LIMITS, Limits
from mancala.ai.minimax import Minimax
from mancala.core.deadline import Deadline
from mancala.game_state import KALAH, GameState
from mancala.games.sowing.solver import (
    OutOfBudget,
    Solver,
    cache_path,
    check_solvable,
    default_cache_dir,
    header_matches,
    scratch_bytes,
)
from mancala.games.sowing.solver.book import GUESS_DEPTH, book_key, first_guess, load_book
from mancala.games.sowing.solver.database import database_seeds

_SOLVERS: dict[tuple[int, bool, int], Solver] = {}
_BOOKS: dict[tuple[int, int, bool], dict] = {}
_LARGEST: dict[tuple[int, bool, int, str], int] = {}  # the players' database size of these rules
SEARCHING = threading.Lock()  # the shared solvers' tables and scratch: one search at a time


def players_database(state: GameState) -> int:
    """The seeds of the endgame database the players use: the largest of `state`'s rules
    in the cache (`mancala solve database --max-seeds 24` makes one), at least the
    default size (`database_seeds`); looked for once a process and cache folder."""
    key = (state.houses, state.empty_capture, state.seeds, str(default_cache_dir()))
    if key not in _LARGEST:
        _LARGEST[key] = database_seeds(state, None)
    return _LARGEST[key]


def shared_solver(state: GameState, max_seeds: int = 0) -> Solver:
    """The process's solver for the board size, capture rule and seeds of `state`, its
    endgame database the players' size, or `max_seeds` seeds when given (a teacher's:
    quiet, since its proofs are many and short)."""
    n = min(max_seeds, 2 * state.houses * state.seeds) if max_seeds else players_database(state)
    key = (state.houses, state.empty_capture, n)
    if key not in _SOLVERS:
        _SOLVERS[key] = Solver(state.houses, state.empty_capture, n)  # a build says how far
        _SOLVERS[key].progress = not max_seeds
    return _SOLVERS[key]


def shared_book(state: GameState) -> dict:
    """The opening book of `state`'s board, seeds and rule ({} if none ships)."""
    key = (state.houses, state.seeds, state.empty_capture)
    if key not in _BOOKS:
        start = GameState.new(KALAH, houses=key[0], seeds=key[1], empty_capture=key[2])
        _BOOKS[key] = load_book(start)
    return _BOOKS[key]


def database_ready(state: GameState | None = None) -> bool:
    """True when the endgame database the players use for `state` (Kalah(6,4) by default)
    is already cached (header check)."""
    state = state or GameState.new(KALAH)
    n = players_database(state)
    path = cache_path(default_cache_dir(), state.houses, n, state.empty_capture)
    return header_matches(path, state.houses, n, state.empty_capture)


def proved(
    solver: Solver,
    state: GameState,
    deadline: Deadline | None,
    guess: float,
    all_moves: bool = False,
    nodes: int | None = None,
) -> dict | None:
    """`solver.solve(state, all_moves, guess=guess)` when it finishes by `deadline` and
    within `nodes`, else None; one search of the shared solvers at a time."""
    with SEARCHING:
        try:
            return solver.solve(state, all_moves, nodes=nodes, guess=guess, deadline=deadline)
        except OutOfBudget:
            return None


def check_fits(state: GameState, limits: Limits) -> None:
    """ValueError unless the shared solver of `state` can search it within `limits`:
    its search scratch fits in the memory, and its database is built or may be."""
    n = players_database(state)
    total = 2 * state.houses * state.seeds
    need = scratch_bytes(state.houses, total, n)
    if need > limits.memory:
        raise ValueError(
            f"solver memory must be at most {limits.memory} bytes here; a board of "
            f"{state.houses} houses and {total} seeds needs {need} for its search"
        )
    path = cache_path(default_cache_dir(), state.houses, n, state.empty_capture)
    if not limits.build and not header_matches(path, state.houses, n, state.empty_capture):
        raise ValueError(
            f"solver has no endgame database for Kalah with {state.houses} houses here, "
            "and building one (minutes) is not allowed"
        )


class PerfectPlayer(Player):
    """A value-optimal move; among equal moves a random one (seeded). Minimax's move
    where the exact search does not finish in time."""

    def __init__(
        self,
        seed: int | None = None,
        seconds: float | None = None,
        solver: Solver | None = None,
        limits: Limits = REGISTRY_LIMITS,
    ) -> None:
        super().__init__(seed)
        self.seconds, self.limits = seconds, limits
        self.solver = solver  # None: the shared solver of each position's rules
        self.fallback: Minimax | None = None  # made on first use: each has a table
        self.guesser: Minimax | None = None

    def _solver(self, state: GameState) -> Solver:
        check_solvable(state)
        if self.solver is not None:
            return self.solver
        check_fits(state, self.limits)
        return shared_solver(state)

    def _exact(self, state: GameState, all_moves: bool, move: Deadline) -> dict | None:
        """The solver's answer, or None where it is not proved by the exact search's
        deadline (its own seconds, at most half of the move's)."""
        solver = self._solver(state)
        half = self.limits.seconds / 2
        exact = Deadline(min(self.seconds or half, half, move.remaining()))
        if self.guesser is None:
            self.guesser = Minimax(seed=0, depth=GUESS_DEPTH, limits=self.limits)
        self.guesser.limits = self.limits.within(exact.remaining())
        guess = first_guess(state, self.guesser)
        return proved(solver, state, exact, guess, all_moves)

    def _minimax(self, move: Deadline) -> Minimax:
        """The fallback, given its own seconds or what is left of the move's."""
        if self.fallback is None:
            seed = self.rng.randrange(1 << 30)
            self.fallback = Minimax(seed, seconds=MAX_SECONDS, limits=self.limits)
        self.fallback.limits = self.limits.within(
            min(self.seconds or MAX_SECONDS, move.remaining())
        )
        return self.fallback

    def choose_move(self, state: GameState) -> int:
        require_moves(state)
        move = Deadline(self.limits.seconds)
        entry = shared_book(state).get(book_key(state))
        if entry is not None:
            return self.rng.choice(entry["best"])
        found = self._exact(state, False, move)
        if found is not None:
            return self.rng.choice(sorted(found["best"]))
        return self._minimax(move).choose_move(state)

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: value}, "best", "nodes", "seconds", "exact"}: exact
        final store differences for the player to move; where they are not proved in
        time, minimax's evaluation with "exact": false."""
        require_moves(state)
        move = Deadline(self.limits.seconds)
        found = self._exact(state, True, move)
        if found is not None:
            return found | {"exact": True}
        return self._minimax(move).evaluate(state) | {"exact": False}
