"""`nmcts[:playouts]`: flat ("naive") Monte Carlo, as in the C program of the blog post
"How to Lose at Mancala (Consistently!)": the playouts are shared out among the legal
first moves, each followed by uniformly random play to the end, and the move with most
wins minus losses (for the mover) is chosen. Runs in numba; seeded. The playouts go
round the first moves one at a time, so a search stopped at its deadline
(`limits.seconds` a call) has tried every move about equally often.

`evaluate(state)` returns {"value": v, "moves": {move: value}, "playouts": n}: each
move's (wins - losses) / playouts for the mover, in [-1, 1]; v is the best of them, n
the playouts of the move tried least.
"""

from __future__ import annotations

import numpy as np

from mancala.ai.base import Player, require_moves
from mancala.ai.limits import REGISTRY_LIMITS, Limits
from mancala.core.deadline import Deadline
from mancala.game_state import GameState
from mancala.games.sowing import engine
from mancala.games.sowing.monte_carlo import flat_monte_carlo

DEFAULT_PLAYOUTS = 200_000


class NaiveMonteCarlo(Player):
    """Random playouts from each first move; most wins minus losses."""

    def __init__(
        self,
        seed: int | None = None,
        playouts: int = DEFAULT_PLAYOUTS,
        limits: Limits = REGISTRY_LIMITS,
    ) -> None:
        super().__init__(seed)
        if playouts < 1:
            raise ValueError(f"nmcts playouts must be at least 1, not {playouts!r}")
        self.playouts, self.limits = playouts, limits

    def _scores(self, state: GameState) -> tuple[dict[int, float], int]:
        moves = require_moves(state)
        board, player, (h, kalah, ec, rl) = engine.to_arrays(state)
        out = np.zeros(h, np.int64)
        tried = np.zeros(h, np.int64)
        counter = np.array([0, max(self.playouts, len(moves))], np.int64)
        seed = self.rng.randrange(2**31)
        with Deadline(self.limits.seconds).stopping(counter):
            flat_monte_carlo(board, player, h, kalah, ec, rl, counter, seed, out, tried)
        scores = {m: float(out[m]) / max(int(tried[m]), 1) for m in moves}
        return scores, min(int(tried[m]) for m in moves)

    def choose_move(self, state: GameState) -> int:
        scores, _ = self._scores(state)
        best = max(scores.values())
        return self.rng.choice([m for m, v in scores.items() if v == best])

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: (wins - losses) / playouts}, "playouts": per move}."""
        scores, each = self._scores(state)
        return {"value": max(scores.values()), "moves": scores, "playouts": each}
