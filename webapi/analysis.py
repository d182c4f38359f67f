"""The value of every legal move, for the page's analysis switch and hint button.

A move's value is the final margin it leads to for the player to move (their store minus
the opponent's at the end of the game) with best play from both sides afterwards:

- "exact": proven. For Kalah, when the solver's endgame database of those rules is
  already cached (it is never built during a request): the position after the move is
  looked up in the solver's opening book (the first two turns of Kalah(6,4): instant;
  the book also gives the value of a booked position's best moves), else solved by
  `Solver.solve` within a share of the time cap. A move that ends the game is
  exact from the scores.
- "estimate": minimax's value (iterative deepening within what is left of the cap) for
  every move not proven: other board sizes, Sungka, a missing database, a long proof.

The answer's "kind" is "exact" when every move is, else "estimate". The work is bounded
by ANALYSIS_SECONDS (the solver's share and minimax's each by a deadline, minimax's no
longer than one search of /api/play), and by the board limits every request passes.
"""

from __future__ import annotations

import time

from mancala.ai.solver import database_ready, proved, shared_book, shared_solver
from mancala.core.deadline import Deadline
from mancala.game_state import GameState
from mancala.games import Capability, capabilities
from mancala.games.sowing.solver import store_lead
from mancala.games.sowing.solver.book import book_key
from webapi.engine import PlayerPool

ANALYSIS_SECONDS = 2.0  # the cap of one analysis, solver and minimax together
SOLVER_SHARE = 0.6  # of the cap, for proofs; minimax gets the rest


def solver_ready(state: GameState) -> bool:
    """True for a game with a solver (Kalah) when the database the shared solver would
    use (the largest of its rules in the cache, as the players': `database_ready`) is
    cached already."""
    return Capability.SOLVER in capabilities(state) and database_ready(state)


def analyse(state: GameState, pool: PlayerPool, seconds: float = ANALYSIS_SECONDS) -> dict:
    """{"player", "kind", "moves": [{"move", "value", "kind"}], "best", "depth", "seconds"}
    for the player to move in `state` (not over). "best": the moves of the highest value
    (an exact one before an estimate of the same value); "depth": minimax's, or None."""
    began = time.perf_counter()
    exact = _exact_values(state, SOLVER_SHARE * seconds) if solver_ready(state) else {}
    moves = state.legal_moves()
    estimates: dict[int, float] = {}
    depth = None
    if len(exact) < len(moves):
        left = seconds * (1 - SOLVER_SHARE) if solver_ready(state) else seconds
        left = min(left, pool.limits.seconds)  # no more than one search of /api/play
        with pool.player(f"minimax:t={left:g}") as minimax:
            evaluation = minimax.evaluate(state)
        estimates, depth = evaluation["moves"], evaluation["depth"]
    values = [
        {"move": m, "value": exact[m], "kind": "exact"}
        if m in exact
        else {"move": m, "value": round(float(estimates[m]), 2), "kind": "estimate"}
        for m in moves
    ]
    top = max((v["value"], v["kind"] == "exact") for v in values)  # a proof wins a tie
    return {
        "player": state.player,
        "kind": "exact" if len(exact) == len(moves) else "estimate",
        "moves": values,
        "best": [v["move"] for v in values if (v["value"], v["kind"] == "exact") == top],
        "depth": depth,
        "seconds": round(time.perf_counter() - began, 3),
    }


def _exact_values(state: GameState, seconds: float) -> dict[int, int]:
    """The moves the book or a proof within `seconds` settles, with their values."""
    deadline = time.perf_counter() + seconds
    book = shared_book(state)
    here = book.get(book_key(state))  # the book's best moves of this very position
    values: dict[int, int] = {}
    pending = []
    for move in state.legal_moves():
        child = state.play(move)
        entry = None if child.is_over() else book.get(book_key(child))
        if here is not None and move in here["best"]:
            values[move] = store_lead(state) + here["value"]
        elif child.is_over():
            s = child.scores()
            values[move] = s[state.player] - s[1 - state.player]
        elif entry is not None:
            values[move] = _mover_view(state, child, store_lead(child) + entry["value"])
        else:
            pending.append((move, child))
    solver = shared_solver(state)
    for i, (move, child) in enumerate(pending):
        share = (deadline - time.perf_counter()) / (len(pending) - i)
        if share <= 0:
            break
        found = proved(solver, child, Deadline(share), guess=0)
        if found is not None:
            values[move] = _mover_view(state, child, found["value"])
    return values


def _mover_view(state: GameState, child: GameState, value: int) -> int:
    """`value` (for the player to move in `child`) from the view of `state`'s mover."""
    return int(value) if child.player == state.player else -int(value)
