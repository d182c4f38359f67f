"""`mcts[:simulations]`, `mcts:t=SECONDS`: UCT Monte Carlo tree search, run in numba on
the fast engine, for a number of simulations or a time a move.

Extra-turn aware: each node records the player to move there (read from the position,
never assumed to alternate), and a child's statistics are kept from the point of view
of the player who chose it, so the backup adds each result as that player sees it.
The leaf values are the game's (`mcts:rollout=NAME`, its kernel adapter's `ROLLOUTS`,
the first the default): on Kalah and Sungka a playout to the end by "greedy" moves (the
move gaining most seeds for the mover, an extra turn preferred, ties at random) or
"random" ones; on Tak the evaluator's value of the leaf ("evaluator": a random Tak game
says little about the position it started from), or a playout by "random", "weighted"
(the seed's) or "sarsa" moves (the lab's SARSA table). Randomness is seeded.

The search is the numba UCT driver (`mancala.ai.uct`) over the game's kernel adapter. A
game with no kernel adapter is searched by the generic UCT of `mancala.ai.search_generic`
under the same name, simulations and limits, each leaf valued by the game's evaluator
(`mancala.games.evaluator`).

The search keeps to its `Limits`: it stops at the deadline (`limits.seconds` a call, or
sooner with `mcts:t=SECONDS`) with the statistics gathered so far, and its node pool
holds at most `limits.memory` bytes (`uct.tree_nodes`; a timed search's, POOL_PER_SECOND
nodes a second asked): once full, later simulations value the leaf they reach without
adding it to the tree.

`evaluate(state)` returns {"value": v, "moves": {move: value}, "visits": {move: n}}:
values are the mover's expected result in [-1, 1] (win 1, draw 0, loss -1) and
"visits" how often the search tried each move.
"""

from __future__ import annotations

import math
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
from mancala.games import game_names, kernel_adapter

DEFAULT_SIMULATIONS = 20_000
MOST_SIMULATIONS = 10_000_000  # a timed search's bound (the registry's for `mcts:N`)
POOL_PER_SECOND = 500_000  # a timed search's node pool a second: more than it adds
_LOADED: set[str] = set()  # the kernel adapters whose UCT driver this process has loaded


def playout_kernel(game: str) -> Any:
    """The kernel adapter of `game` when it offers leaf values (`ROLLOUTS`), else None."""
    try:
        adapter = kernel_adapter(game)
    except ValueError:
        return None
    return adapter if hasattr(adapter, "ROLLOUTS") else None


def rollout_names() -> list[str]:
    """Every game's leaf values (`mcts:rollout=NAME`), each once, in registry order."""
    names = [list(getattr(playout_kernel(game), "ROLLOUTS", ())) for game in game_names()]
    return list(dict.fromkeys(name for some in names for name in some))


class MCTS(Player):
    """UCT with `simulations` simulations a move, or as many as `seconds` a move allow
    (up to MOST_SIMULATIONS), and a way to value leaves (None: the game's default)."""

    def __init__(
        self,
        seed: int | None = None,
        simulations: int | None = None,
        rollout: str | None = None,
        exploration: float = 1.4,
        limits: Limits = REGISTRY_LIMITS,
        seconds: float | None = None,
    ) -> None:
        super().__init__(seed)
        if seconds is not None and not 0 < seconds < math.inf:
            raise ValueError(f"mcts seconds must be a positive number, not {seconds!r}")
        if simulations is None:
            simulations = DEFAULT_SIMULATIONS if seconds is None else MOST_SIMULATIONS
        check_tree_search(simulations, rollout, rollout_names())
        self.simulations, self.seconds = simulations, seconds
        self.rollout = rollout
        self.exploration = exploration
        self.limits = limits

    def _search(self, state: GameState) -> tuple[dict[int, int], dict[int, float]]:
        moves = require_moves(state)
        adapter = playout_kernel(state.game)
        if self.rollout is not None and self.rollout not in adapter.ROLLOUTS:
            raise ValueError(
                f"mcts rollout {self.rollout!r} is not one of {state.game}'s: "
                f"{', '.join(adapter.ROLLOUTS)}"
            )
        kernel = adapter.kernel(state, rollout=self.rollout)
        counter = np.array([0, self.simulations], np.int64)
        nodes = self.simulations
        if self.seconds is not None:
            nodes = min(nodes, math.ceil(self.seconds * POOL_PER_SECOND))
        size = uct.tree_nodes(nodes, self.limits.memory, kernel.edges, kernel.stored)
        seed = self.rng.randrange(2**31)
        if adapter.__name__ not in _LOADED:  # the compiled driver loaded before the clock runs
            uct.search(kernel, np.array([0, 1], np.int64), 2, self.exploration, seed)
            _LOADED.add(adapter.__name__)
        with Deadline(min(self.seconds or math.inf, self.limits.seconds)).stopping(counter):
            visits, values = uct.search(kernel, counter, size, self.exploration, seed)
        counts = {m: int(visits[i]) for i, m in enumerate(moves)}
        means = {
            m: (float(values[i] / visits[i]) if visits[i] else 0.0) for i, m in enumerate(moves)
        }
        return counts, means

    @cached_property
    def _generic(self) -> UCT:
        """The generic UCT, for games with no kernel adapter."""
        seed = self.rng.randrange(2**32)
        limits = self.limits if self.seconds is None else self.limits.within(self.seconds)
        return UCT(seed, self.simulations, rollout=self.rollout or "evaluator", limits=limits)

    def choose_move(self, state: GameState) -> int:
        if playout_kernel(state.game) is None:
            return self._generic.choose_move(state)
        counts, means = self._search(state)
        best = max(counts, key=lambda m: (counts[m], means[m]))
        self.simulations_done, self.score = sum(counts.values()), means[best]  # TEI's info
        return best

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: mean result}, "visits": {move: n}}; mover's view."""
        if playout_kernel(state.game) is None:
            return self._generic.evaluate(state)
        counts, means = self._search(state)
        best = max(counts, key=lambda m: (counts[m], means[m]))
        return {"value": means[best], "moves": means, "visits": counts}
