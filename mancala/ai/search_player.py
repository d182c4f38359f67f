"""What the searching players share: the checks of a tree search's settings, and the face
of a search that values every move (`choose_move`, `evaluate`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mancala.ai.base import Player
from mancala.ai.limits import REGISTRY_LIMITS, Limits, depth_or_time


def check_tree_search(simulations: int, rollout: str | None, rollouts: Sequence[str]) -> None:
    """ValueError unless a tree search gets at least one simulation and a known rollout
    (None: its default)."""
    if simulations < 1:
        raise ValueError(f"mcts simulations must be at least 1, not {simulations!r}")
    if rollout is not None and rollout not in rollouts:
        raise ValueError(f"unknown rollout policy {rollout!r}; choose one of {', '.join(rollouts)}")


class MoveValueSearch(Player):
    """A player whose search values every move (`_move_values`) to `depth` plies, or by
    iterative deepening within `seconds` a move, with an optional evaluator (None: the
    default), recording the depth it reached (`reached`) and the nodes it visited
    (`nodes`)."""

    def __init__(
        self,
        seed: int | None = None,
        evaluate: Callable[[Any], float] | None = None,
        depth: int | None = None,
        seconds: float | None = None,
        limits: Limits = REGISTRY_LIMITS,
    ) -> None:
        super().__init__(seed)
        self.depth, self.seconds = depth_or_time(depth, seconds)
        self.limits = limits
        self.evaluator = evaluate
        self.nodes = self.reached = 0
        self.score = 0.0

    def _move_values(self, state: Any, exact: bool) -> dict[int, float]:
        """Each legal move's value for the mover; exact=False may leave the moves that
        are not the best as bounds."""
        raise NotImplementedError

    def choose_move(self, state: Any) -> int:
        values = self._move_values(state, exact=False)
        best = max(values, key=values.__getitem__)  # the first best in the searched order
        self.score = float(values[best])
        return best

    def evaluate(self, state: Any) -> dict:
        """{"value", "moves": {move: value}, "depth", "nodes"}; values for the mover."""
        values = self._move_values(state, exact=True)
        return {
            "value": max(values.values()),
            "moves": values,
            "depth": self.reached,
            "nodes": self.nodes,
        }
