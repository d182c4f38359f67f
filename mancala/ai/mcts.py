"""`mcts[:simulations]`: UCT Monte Carlo tree search, run in numba on the fast engine.

Extra-turn aware: each node records the player to move there (read from the position,
never assumed to alternate), and a child's statistics are kept from the point of view
of the player who chose it, so the backup adds each result as that player sees it.
The rollout policy is pluggable: "greedy" (the move gaining most seeds for the mover,
an extra turn preferred, ties at random; the default) or "random" (uniform legal moves);
randomness is seeded. Greedy rollouts cost about 1.5 times a random one here and make
the search much stronger per second: against the greedy player over the same 60 Kalah
games, 4,000 simulations with greedy rollouts won 58 where 20,000 with random rollouts
won 56, in a quarter of the time.

The search is the numba UCT driver (`mancala.ai.uct`) over the game's kernel adapter. A
game whose kernel offers no playouts (Tak) is searched by the generic UCT of
`mancala.ai.search_generic` under the same name, simulations and limits, each leaf valued
by the game's evaluator (`mancala.games.evaluator`): a random Tak game says little about
the position it started from.

The search keeps to its `Limits`: it stops at the deadline (`limits.seconds` a call)
with the statistics gathered so far, and its node pool holds at most `limits.memory`
bytes (`uct.tree_nodes`): once full, later simulations roll out from the leaf they reach
without adding it to the tree.

`evaluate(state)` returns {"value": v, "moves": {move: value}, "visits": {move: n}}:
values are the mover's expected result in [-1, 1] (win 1, draw 0, loss -1) and
"visits" how often the search tried each move.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from mancala.ai import uct
from mancala.ai.base import Player, require_moves
from mancala.ai.limits import REGISTRY_LIMITS, Limits
from mancala.ai.search_generic import UCT
from mancala.ai.search_player import check_tree_search
from mancala.core.deadline import Deadline
from mancala.game_state import GameState
from mancala.games import kernel_adapter
from mancala.games.sowing.monte_carlo import ROLLOUTS

DEFAULT_SIMULATIONS = 20_000


def playout_kernel(state: GameState) -> Any:
    """The kernel adapter of `state`'s game when it offers playouts (`ROLLOUTS`), else
    None."""
    try:
        adapter = kernel_adapter(state.game)
    except ValueError:
        return None
    return adapter if hasattr(adapter, "ROLLOUTS") else None


class MCTS(Player):
    """UCT with `simulations` simulations a move and a rollout policy."""

    def __init__(
        self,
        seed: int | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        rollout: str = "greedy",
        exploration: float = 1.4,
        limits: Limits = REGISTRY_LIMITS,
    ) -> None:
        super().__init__(seed)
        check_tree_search(simulations, rollout, sorted(ROLLOUTS))
        self.simulations = simulations
        self.rollout = rollout
        self.exploration = exploration
        self.limits = limits

    def _search(self, state: GameState) -> tuple[dict[int, int], dict[int, float]]:
        moves = require_moves(state)
        kernel = playout_kernel(state).kernel(state, rollout=self.rollout)
        counter = np.array([0, self.simulations], np.int64)
        size = uct.tree_nodes(self.simulations, self.limits.memory, kernel.edges, kernel.stored)
        seed = self.rng.randrange(2**31)
        with Deadline(self.limits.seconds).stopping(counter):
            visits, values = uct.search(kernel, counter, size, self.exploration, seed)
        counts = {m: int(visits[i]) for i, m in enumerate(moves)}
        means = {
            m: (float(values[i] / visits[i]) if visits[i] else 0.0) for i, m in enumerate(moves)
        }
        return counts, means

    @cached_property
    def _generic(self) -> UCT:
        """The generic UCT, for games whose kernel has no playouts."""
        seed = self.rng.randrange(2**32)
        return UCT(seed, self.simulations, rollout="evaluator", limits=self.limits)

    def choose_move(self, state: GameState) -> int:
        if playout_kernel(state) is None:
            return self._generic.choose_move(state)
        counts, means = self._search(state)
        return max(counts, key=lambda m: (counts[m], means[m]))

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: mean result}, "visits": {move: n}}; mover's view."""
        if playout_kernel(state) is None:
            return self._generic.evaluate(state)
        counts, means = self._search(state)
        best = max(counts, key=lambda m: (counts[m], means[m]))
        return {"value": means[best], "moves": means, "visits": counts}
