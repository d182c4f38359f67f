"""Searches for any game of the protocol (`mancala.games`), in Python: alpha-beta with an
evaluator, UCT Monte Carlo tree search, and the one-ply player.

An evaluator is `value(state) -> float`, the position for the player to move, exact at
the end of the game; by default the game's own (`mancala.games.evaluator`). Values of
`WIN_VALUE` or more in size are won or lost games: alpha-beta takes one off for each ply
between the root and the end, so a sooner win (and a later loss) is preferred. Whose turn
it is comes from `state.player` after every move, never from alternation: a move after
which the same player moves again keeps the value's sign.

Both searches keep to their `Limits`: the deadline `limits.seconds` a call (a search
stopped by it returns what it finished: alpha-beta the deepest whole depth, depth 1
always; UCT the simulations run), and tables or trees within `limits.memory` bytes
(counted at `STATE_BYTES` a position).

`evaluate(state)` returns {"value", "moves": {move: value}, ...} for the player to move,
as the numba searches do (`mancala.ai.minimax`, `mancala.ai.mcts`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from mancala.ai.base import Player, require_moves
from mancala.ai.limits import MAX_DEPTH, REGISTRY_LIMITS, Limits
from mancala.ai.search_player import MoveValueSearch, check_tree_search
from mancala.core.deadline import Deadline
from mancala.games import EVALUATOR_SCALE, WIN_VALUE, evaluator, rollout

State = Any  # any state of the game protocol
Evaluator = Callable[[State], float]
DECIDED = WIN_VALUE / 2  # values this large in size are won or lost games
STATE_BYTES = 2000  # what one remembered position is counted as against limits.memory


def mover_view(before: State, after: State, value: float) -> float:
    """`value` (for `after`'s player to move) seen by `before`'s player to move."""
    return value if after.player == before.player else -value


class _Stop(Exception):
    """The deadline passed in the middle of a depth."""


class AlphaBeta(MoveValueSearch):
    """Alpha-beta (negamax, fail-soft, a transposition table, the best move of the last
    depth first) to `depth` plies, or iterative deepening within `seconds` a move."""

    # ----- the search ----------------------------------------------------------------

    def _search(self, state: State, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The value of `state`, `ply` plies from the root, for its player to move,
        `depth` plies deep."""
        self.nodes += 1
        if depth == 0 or state.is_over():
            value = float(self._value(state))
            if abs(value) >= DECIDED:  # a sooner win is worth more
                value = math.copysign(abs(value) - ply, value)
            return value
        if self._watch and self._deadline.expired():
            raise _Stop
        hit = self._table.get(state)
        first = None
        if hit is not None:
            stored_depth, stored, bound, first = hit
            if stored_depth >= depth and (
                bound == 0 or (bound > 0 and stored >= beta) or (bound < 0 and stored <= alpha)
            ):
                return stored
        alpha0, best, best_move = alpha, -math.inf, None
        for move in _first(state.legal_moves(), first):
            child = state.play(move)
            if child.player == state.player:
                value = self._search(child, depth - 1, alpha, beta, ply + 1)
            else:
                value = -self._search(child, depth - 1, -beta, -alpha, ply + 1)
            if value > best:
                best, best_move = value, move
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        if len(self._table) < self._room:
            bound = -1 if best <= alpha0 else (1 if best >= beta else 0)
            self._table[state] = (depth, best, bound, best_move)
        return best

    def _root(self, state: State, depth: int, order: list[int], exact: bool) -> dict[int, float]:
        """The value of each move in `order` for the player to move; with `exact` each
        exactly, else the best exactly and the others as upper bounds."""
        values: dict[int, float] = {}
        alpha = -math.inf
        for move in order:
            child = state.play(move)
            low = -math.inf if exact else alpha
            if child.player == state.player:
                raw = self._search(child, depth - 1, low, math.inf, 1)
            else:
                raw = self._search(child, depth - 1, -math.inf, -low, 1)
            values[move] = mover_view(state, child, raw)
            alpha = max(alpha, values[move])
        return values

    def _move_values(self, state: State, exact: bool) -> dict[int, float]:
        """Iterative deepening: the move values of the deepest depth finished in time."""
        moves = require_moves(state)
        self._value = self.evaluator or evaluator(state.game)
        self._deadline = Deadline(min(self.seconds or math.inf, self.limits.seconds))
        self._table: dict = {}
        self._room = max(1, self.limits.memory // STATE_BYTES)
        self.nodes = self.reached = 0
        order = self.rng.sample(moves, len(moves))  # ties go to a random one of the best
        values: dict[int, float] = {}
        start = time.perf_counter()
        for depth in range(1, (self.depth or MAX_DEPTH) + 1):
            elapsed = time.perf_counter() - start
            if self.seconds is not None and depth > 1 and self._deadline.remaining() <= elapsed:
                break  # the next depth would not finish in time
            self._watch = depth > 1  # depth 1 always finishes, so that there is a move
            try:
                values = self._root(state, depth, order, exact)
            except _Stop:
                break
            self.reached = depth
            order.sort(key=lambda m: -values[m])
            if all(abs(v) >= DECIDED for v in values.values()):
                break  # every move's end is known
        return values


def _first(moves: list[int], first: int | None) -> list[int]:
    """`moves` with `first` (the table's best move) in front."""
    if first is None or first not in moves:
        return moves
    return [first, *(m for m in moves if m != first)]


class _Node:
    """A position of the UCT tree: its untried moves, children, visits and the summed
    result for the player who moved into it."""

    __slots__ = ("children", "state", "total", "untried", "visits")

    def __init__(self, state: State, untried: list[int]) -> None:
        self.state, self.untried = state, untried
        self.children: dict[int, _Node] = {}
        self.visits, self.total = 0, 0.0


ROLLOUTS = ("random", "evaluator")


class UCT(Player):
    """UCT Monte Carlo tree search with `simulations` a move. A leaf is valued by a random
    playout to the end (the game's fast one where it has one: `mancala.games.rollout`) or,
    with rollout="evaluator", by the evaluator squashed into -1..1."""

    def __init__(
        self,
        seed: int | None = None,
        simulations: int = 1000,
        rollout: str = "random",
        evaluate: Evaluator | None = None,
        exploration: float = 1.4,
        limits: Limits = REGISTRY_LIMITS,
    ) -> None:
        super().__init__(seed)
        check_tree_search(simulations, rollout, ROLLOUTS)
        self.simulations, self.rollout, self.evaluator = simulations, rollout, evaluate
        self.exploration, self.limits = exploration, limits

    def _leaf(self, state: State) -> float:
        """The result of `state` for its player to move, in -1..1."""
        if state.is_over() or self.rollout == "random":
            winner = self._playout(state)
            return 0.0 if winner is None else (1.0 if winner == state.player else -1.0)
        value = (self.evaluator or evaluator(state.game))(state)
        return math.tanh(value / EVALUATOR_SCALE)

    def _playout(self, state: State) -> int | None:
        """The winner of a random game from `state`."""
        if state.is_over():
            return state.winner()
        fast = rollout(state.game)
        if fast is not None:
            return fast(state, self.rng.randrange(2**31))
        while not state.is_over():
            state = state.play(self.rng.choice(state.legal_moves()))
        return state.winner()

    def _new_node(self, state: State) -> _Node:
        moves = state.legal_moves()
        return _Node(state, self.rng.sample(moves, len(moves)))

    def _select(self, node: _Node) -> tuple[int, _Node]:
        log_n = math.log(node.visits)
        return max(
            node.children.items(),
            key=lambda item: (
                item[1].total / item[1].visits
                + self.exploration * math.sqrt(log_n / item[1].visits)
            ),
        )

    def _simulate(self, root: _Node, room: int) -> int:
        """One simulation: down the tree, one new node (while there is `room`), a leaf
        value, and the backup; the nodes added."""
        path, node, added = [root], root, 0
        while not node.state.is_over():
            if node.untried:
                if room > 0:
                    move = node.untried.pop()
                    child = self._new_node(node.state.play(move))
                    node.children[move] = child
                    path.append(child)
                    added = 1
                break
            _, node = self._select(node)
            path.append(node)
        leaf = path[-1].state
        result = self._leaf(leaf)  # for the leaf's player to move
        for parent, child in zip(reversed(path[:-1]), reversed(path[1:])):
            child.visits += 1
            child.total += result if child.state.player == parent.state.player else -result
            result = result if child.state.player == parent.state.player else -result
        root.visits += 1
        return added

    def _search(self, state: State) -> _Node:
        require_moves(state)
        root = self._new_node(state)
        deadline = Deadline(self.limits.seconds)
        room = max(1, self.limits.memory // STATE_BYTES)
        for _ in range(self.simulations):
            room -= self._simulate(root, room)
            if deadline.expired():
                break
        return root

    def choose_move(self, state: State) -> int:
        root = self._search(state)
        return max(root.children, key=lambda m: _rank(root.children[m]))

    def evaluate(self, state: State) -> dict:
        """{"value", "moves": {move: mean result}, "visits": {move: n}}; mover's view."""
        root = self._search(state)
        means = {m: c.total / c.visits for m, c in root.children.items()}
        best = max(root.children, key=lambda m: _rank(root.children[m]))
        return {
            "value": means[best],
            "moves": means,
            "visits": {m: c.visits for m, c in root.children.items()},
        }


def _rank(node: _Node) -> tuple[int, float]:
    return node.visits, node.total / max(node.visits, 1)


class OnePly(Player):
    """The move whose position the evaluator likes best for the mover (a win now above
    all), ties at random."""

    def __init__(self, seed: int | None = None, evaluate: Evaluator | None = None) -> None:
        super().__init__(seed)
        self.evaluator = evaluate

    def move_values(self, state: State) -> dict[int, float]:
        """The value of each legal move for the player to move."""
        value = self.evaluator or evaluator(state.game)
        values = {}
        for move in require_moves(state):
            after = state.play(move)
            values[move] = mover_view(state, after, value(after))
        return values

    def choose_move(self, state: State) -> int:
        values = self.move_values(state)
        best = max(values.values())
        return self.rng.choice([m for m, v in values.items() if v == best])
