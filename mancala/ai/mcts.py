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

`evaluate(state)` returns {"value": v, "moves": {move: value}, "visits": {move: n}}:
values are the mover's expected result in [-1, 1] (win 1, draw 0, loss -1) and
"visits" how often the search tried each move.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mancala import engine
from mancala.ai.base import Player, require_moves
from mancala.game_state import GameState

DEFAULT_SIMULATIONS = 20_000
ROLLOUTS = {"random": 0, "greedy": 1}  # the numba rollout's policy numbers


def positive_count(what: str, param: str | None, default: int) -> int:
    """The positive whole number `param` ('2000'), `default` when None; ValueError else.

    >>> positive_count("simulations", "-3", 10)
    Traceback (most recent call last):
    ...
    ValueError: simulations must be a positive whole number, not '-3'
    """
    if param is None:
        return default
    text = param.replace("_", "")
    if not text.isdigit() or int(text) <= 0:
        raise ValueError(f"{what} must be a positive whole number, not {param!r}")
    return int(text)


@njit(cache=True)
def greedy_move(board, player, h, kalah, ec, rl, moves, scratch):
    """The legal move that gains most seeds for `player` (extra turn +0.5), ties random."""
    lo = player * (h + 1)
    store = lo + h
    best = -1.0
    n = 0
    for i in range(h):
        if board[lo + i] == 0:
            continue
        scratch[:] = board
        nxt = engine.play(scratch, player, i, h, kalah, ec, rl)
        gain = scratch[store] - board[store] + (0.5 if nxt == player else 0.0)
        if gain > best:
            best = gain
            n = 0
        if gain == best:
            moves[n] = i
            n += 1
    return moves[np.random.randint(n)]


@njit(cache=True)
def rollout(board, player, h, kalah, ec, rl, policy, moves, scratch):
    """Play to the end with `policy` (0 random, 1 greedy); player 0's score difference."""
    while not engine.is_over(board, h, kalah):
        if policy == 1:
            move = greedy_move(board, player, h, kalah, ec, rl, moves, scratch)
        else:
            move = engine.random_move(board, player, h, moves)
        player = engine.play(board, player, move, h, kalah, ec, rl)
    return engine.score_diff(board, h)


@njit(cache=True)
def uct(
    board0, player0, h, kalah, ec, rl, simulations, c, policy, rng_seed, visits_out, values_out
):
    """Run `simulations` UCT simulations; per root move, visits and summed result for
    the root player (win 1, draw 0, loss -1) into the two output arrays."""
    np.random.seed(rng_seed)
    size = simulations + 2
    boards = np.empty((size, board0.shape[0]), np.int64)
    players = np.empty(size, np.int64)
    children = np.full((size, h), -1, np.int64)
    visits = np.zeros(size, np.float64)
    values = np.zeros(size, np.float64)  # from the view of the parent's player
    boards[0] = board0
    players[0] = player0
    used = 1
    path = np.empty(size, np.int64)
    moves = np.empty(h, np.int64)
    scratch = np.empty_like(board0)
    work = np.empty_like(board0)
    for _ in range(simulations):
        node = 0
        depth = 0
        path[0] = 0
        while True:
            b = boards[node]
            if engine.is_over(b, h, kalah):
                break
            p = players[node]
            lo = p * (h + 1)
            untried = -1
            best = -1e300
            choice = -1
            log_n = math.log(visits[node] + 1.0)
            for m in range(h):
                if b[lo + m] == 0:
                    continue
                child = children[node, m]
                if child < 0:
                    untried = m
                    break
                score = values[child] / visits[child] + c * math.sqrt(log_n / visits[child])
                if score > best:
                    best = score
                    choice = child
            if untried >= 0:  # expand one move
                child = used
                used += 1
                boards[child] = b
                players[child] = engine.play(boards[child], p, untried, h, kalah, ec, rl)
                children[node, untried] = child
                depth += 1
                path[depth] = child
                node = child
                break
            node = choice
            depth += 1
            path[depth] = node
        work[:] = boards[node]
        diff = rollout(work, players[node], h, kalah, ec, rl, policy, moves, scratch)
        result0 = 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)
        visits[0] += 1
        for k in range(1, depth + 1):
            child = path[k]
            parent_player = players[path[k - 1]]
            visits[child] += 1
            values[child] += result0 if parent_player == 0 else -result0
    for m in range(h):
        child = children[0, m]
        visits_out[m] = visits[child] if child >= 0 else 0
        values_out[m] = values[child] if child >= 0 else 0


class MCTS(Player):
    """UCT with `simulations` simulations a move and a rollout policy."""

    def __init__(
        self,
        seed: int | None = None,
        param: str | None = None,
        simulations: int | None = None,
        rollout: str = "greedy",
        exploration: float = 1.4,
    ) -> None:
        super().__init__(seed)
        self.simulations = simulations or positive_count("simulations", param, DEFAULT_SIMULATIONS)
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout policy {rollout!r}; choose one of greedy, random")
        self.policy = ROLLOUTS[rollout]
        self.exploration = exploration

    def _search(self, state: GameState) -> tuple[dict[int, int], dict[int, float]]:
        moves = require_moves(state)
        board, player, (h, kalah, ec, rl) = engine.to_arrays(state)
        visits = np.zeros(h, np.float64)
        values = np.zeros(h, np.float64)
        uct(
            board,
            player,
            h,
            kalah,
            ec,
            rl,
            self.simulations,
            self.exploration,
            self.policy,
            self.rng.randrange(2**31),
            visits,
            values,
        )
        counts = {m: int(visits[m]) for m in moves}
        means = {m: (float(values[m] / visits[m]) if visits[m] else 0.0) for m in moves}
        return counts, means

    def choose_move(self, state: GameState) -> int:
        counts, means = self._search(state)
        return max(counts, key=lambda m: (counts[m], means[m]))

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: mean result}, "visits": {move: n}}; mover's view."""
        counts, means = self._search(state)
        best = max(counts, key=lambda m: (counts[m], means[m]))
        return {"value": means[best], "moves": means, "visits": counts}
