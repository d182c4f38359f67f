"""`nmcts[:playouts]`: flat ("naive") Monte Carlo, as in the C program of the blog post
"How to Lose at Mancala (Consistently!)": the playouts are shared out among the legal
first moves, each followed by uniformly random play to the end, and the move with most
wins minus losses (for the mover) is chosen. Runs in numba; seeded.

`evaluate(state)` returns {"value": v, "moves": {move: value}, "playouts": n}: each
move's (wins - losses) / playouts for the mover, in [-1, 1]; v is the best of them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala import engine
from mancala.ai.base import Player, require_moves
from mancala.ai.mcts import positive_count
from mancala.game_state import GameState

DEFAULT_PLAYOUTS = 200_000


@njit(cache=True)
def flat_monte_carlo(board0, player0, h, kalah, ec, rl, playouts, rng_seed, out):
    """Wins minus losses of `player0` after each legal first move into `out`."""
    np.random.seed(rng_seed)
    lo = player0 * (h + 1)
    legal = 0
    for m in range(h):
        out[m] = 0
        if board0[lo + m] > 0:
            legal += 1
    each = max(1, playouts // legal)
    moves = np.empty(h, np.int64)
    board = np.empty_like(board0)
    for m in range(h):
        if board0[lo + m] == 0:
            continue
        for _ in range(each):
            board[:] = board0
            nxt = engine.play(board, player0, m, h, kalah, ec, rl)
            diff, _count = engine.random_playout(board, nxt, h, kalah, ec, rl, moves)
            if player0 == 1:
                diff = -diff
            if diff > 0:
                out[m] += 1
            elif diff < 0:
                out[m] -= 1
    return each


class NaiveMonteCarlo(Player):
    """Random playouts from each first move; most wins minus losses."""

    def __init__(
        self, seed: int | None = None, param: str | None = None, playouts: int | None = None
    ) -> None:
        super().__init__(seed)
        self.playouts = playouts or positive_count("playouts", param, DEFAULT_PLAYOUTS)

    def _scores(self, state: GameState) -> tuple[dict[int, float], int]:
        moves = require_moves(state)
        board, player, (h, kalah, ec, rl) = engine.to_arrays(state)
        out = np.zeros(h, np.int64)
        each = flat_monte_carlo(
            board, player, h, kalah, ec, rl, self.playouts, self.rng.randrange(2**31), out
        )
        return {m: float(out[m]) / each for m in moves}, each

    def choose_move(self, state: GameState) -> int:
        scores, _ = self._scores(state)
        best = max(scores.values())
        return self.rng.choice([m for m, v in scores.items() if v == best])

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: (wins - losses) / playouts}, "playouts": per move}."""
        scores, each = self._scores(state)
        return {"value": max(scores.values()), "moves": scores, "playouts": each}
