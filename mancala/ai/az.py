"""`az-net` and `az[:simulations]`: AlphaZero-style players of a policy-value network.

`az-net` plays the policy head's favourite legal move, without search. `az` runs PUCT
search in numba on the fast engine: a leaf is valued by the network's value head (no
rollouts) and its moves get the policy head's priors; a move is chosen by
Q + c * prior * sqrt(N(parent)) / (1 + N(child)), an unvisited move counting as a draw.
Each node records the player to move there, read from the position (an extra turn keeps
the mover), and a child's statistics are kept from the view of the player who chose it.

The forward pass runs inside the kernel (`forward`): the one-hot first layer is a sum of
the weight rows of the counts on the board, the second layer a float32 `np.dot`, so a
leaf costs no Python at all. The search keeps to its `Limits`: it stops at the deadline
with what it has, and once its node pool (`tree_nodes`, within `limits.memory`) is full.

Weights: mancala/models/<game>/az-net.keras (`mancala.nn_lib.policy_value`); a name plays
every game it has weights for and refuses the others before a move.
"""

from __future__ import annotations

import math
import os

import numpy as np
from numba import njit

from mancala.ai.base import Player, require_moves
from mancala.ai.limits import REGISTRY_LIMITS, Limits
from mancala.core.deadline import Deadline
from mancala.game_state import GameState
from mancala.games.sowing import engine
from mancala.nn_lib.encoders import ONE_HOT_BINS, SCALE
from mancala.nn_lib.policy_value import NAME, PolicyValue, make_command, trained_games

DEFAULT_SIMULATIONS = 5000  # the registry's default too; docs/az.md times it
EXPLORATION = 1.5


@njit(cache=True, nogil=True)
def forward(board, player, h, w1, b1, w2, b2, wp, bp, wv, bv, logits, hidden):
    """The value for `player` (to move) of `board`; its policy logits into `logits`."""
    own = player * (h + 1)
    opp = (1 - player) * (h + 1)
    hidden[:] = b1
    for i in range(h):
        hidden += w1[i * ONE_HOT_BINS + min(board[own + i], ONE_HOT_BINS - 1)]
        hidden += w1[(h + i) * ONE_HOT_BINS + min(board[opp + i], ONE_HOT_BINS - 1)]
    stores = 2 * h * ONE_HOT_BINS
    hidden += w1[stores] * np.float32(board[own + h] / SCALE)
    hidden += w1[stores + 1] * np.float32(board[opp + h] / SCALE)
    hidden2 = np.maximum(np.dot(np.maximum(hidden, np.float32(0.0)), w2) + b2, np.float32(0.0))
    logits[:] = np.dot(hidden2, wp) + bp
    return math.tanh(np.dot(hidden2, wv) + bv[0])


@njit(cache=True, nogil=True)
def set_priors(board, player, h, logits, priors):
    """Softmax of `logits` over `player`'s legal houses into `priors` (0 elsewhere)."""
    lo = player * (h + 1)
    top = -np.inf
    for m in range(h):
        if board[lo + m] > 0 and logits[m] > top:
            top = logits[m]
    total = 0.0
    for m in range(h):
        priors[m] = math.exp(logits[m] - top) if board[lo + m] > 0 else 0.0
        total += priors[m]
    for m in range(h):
        priors[m] /= total


@njit(cache=True, nogil=True)
def final_value(board, player, h):
    """The finished game's result for `player`: 1 won, 0 drawn, -1 lost."""
    diff = engine.score_diff(board, h)
    result0 = 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)
    return result0 if player == 0 else -result0


@njit(cache=True, nogil=True)
def puct(board0, player0, h, kalah, ec, rl, counter, size, c, noise, noise_frac, weights, out):
    """PUCT simulations until counter[0] passes counter[1] (a deadline lowers it to -1) or
    the pool of `size` nodes is full. `noise` (per house) is mixed into the root's priors
    with weight `noise_frac`. Per root move, visits into out[0] and summed value for the
    root player into out[1]; returns the network's value of the root."""
    w1, b1, w2, b2, wp, bp, wv, bv = weights
    boards = np.empty((size, board0.shape[0]), np.int64)
    players = np.empty(size, np.int64)
    children = np.full((size, h), -1, np.int64)
    priors = np.zeros((size, h), np.float64)
    visits = np.zeros(size, np.float64)
    values = np.zeros(size, np.float64)  # from the view of the parent's player
    path = np.empty(size, np.int64)
    logits = np.empty(h, np.float32)
    hidden = np.empty(b1.shape[0], np.float32)
    boards[0] = board0
    players[0] = player0
    root_value = forward(board0, player0, h, w1, b1, w2, b2, wp, bp, wv, bv, logits, hidden)
    set_priors(board0, player0, h, logits, priors[0])
    lo = player0 * (h + 1)
    for m in range(h):
        if board0[lo + m] > 0:
            priors[0, m] = (1.0 - noise_frac) * priors[0, m] + noise_frac * noise[m]
    visits[0] = 1.0
    used = 1
    while counter[0] < counter[1] and used < size:
        counter[0] += 1
        node = 0
        depth = 0
        path[0] = 0
        while True:
            b = boards[node]
            p = players[node]
            if engine.is_over(b, h, kalah):
                value = final_value(b, p, h)
                break
            lo = p * (h + 1)
            root_n = math.sqrt(visits[node])
            best = -1e300
            move = -1
            for m in range(h):
                if b[lo + m] == 0:
                    continue
                child = children[node, m]
                q, n = (0.0, 0.0) if child < 0 else (values[child] / visits[child], visits[child])
                score = q + c * priors[node, m] * root_n / (1.0 + n)
                if score > best:
                    best = score
                    move = m
            child = children[node, move]
            depth += 1
            if child >= 0:
                node = child
                path[depth] = node
                continue
            child = used  # a new leaf: valued by the network (or the rules, when over)
            used += 1
            boards[child] = b
            players[child] = engine.play(boards[child], p, move, h, kalah, ec, rl)
            children[node, move] = child
            path[depth] = child
            node = child
            b = boards[child]
            p = players[child]
            if engine.is_over(b, h, kalah):
                value = final_value(b, p, h)
            else:
                value = forward(b, p, h, w1, b1, w2, b2, wp, bp, wv, bv, logits, hidden)
                set_priors(b, p, h, logits, priors[child])
            break
        leaf_player = players[node]
        visits[0] += 1
        for k in range(1, depth + 1):
            child = path[k]
            visits[child] += 1
            values[child] += value if players[path[k - 1]] == leaf_player else -value
    for m in range(h):
        child = children[0, m]
        out[0, m] = visits[child] if child >= 0 else 0.0
        out[1, m] = values[child] if child >= 0 else 0.0
    return root_value


def node_bytes(houses: int) -> int:
    """Bytes of one tree node: board, player, children, priors, visits, value, path slot."""
    return 8 * ((2 * houses + 2) + 1 + 2 * houses + 3)


def tree_nodes(simulations: int, houses: int, memory: int) -> int:
    """The node pool of a search: one node a simulation (and the root), within `memory`.

    >>> tree_nodes(10**9, 6, 16 << 20), tree_nodes(100, 6, 16 << 20)
    (69905, 102)
    """
    return max(2, min(simulations + 2, memory // node_bytes(houses)))


class AZNet(Player):
    """`az-net`: the policy head's favourite legal move. `net` (a loaded PolicyValue) or
    `path` (weights of `game`) override the shipped weights of every game."""

    def __init__(
        self,
        seed: int | None = None,
        path: str | os.PathLike | None = None,
        game: str = "kalah",
        net: PolicyValue | None = None,
    ) -> None:
        super().__init__(seed)
        if net is None and path is not None:
            net = PolicyValue(game, path).load()
        if net is not None:
            nets = [net]
        else:
            games = [g["variant"] for g in trained_games()] or ["kalah"]  # kalah: says how
            nets = [PolicyValue(g).load() for g in games]
        # not `nets`: a zoo player's attribute, which the arena sends as numpy weights
        self.networks = {n.game: n for n in nets}
        self.np_rng = np.random.default_rng(seed)

    def net_for(self, state: GameState) -> PolicyValue:
        """The network of `state`'s game; ValueError when there are no weights for it."""
        net = self.networks.get(state.game)
        if net is None:
            raise ValueError(
                f"{NAME} has no weights for {state.game}; make them with "
                f"`{make_command(state.game)}`"
            )
        net.check_state(state)
        return net

    def policy(self, state: GameState) -> tuple[dict[int, float], float]:
        """({legal move: prior}, value for the mover) of the network, without search."""
        moves = require_moves(state)
        net = self.net_for(state)
        board, player, (h, *_) = engine.to_arrays(state)
        logits = np.empty(h, np.float32)
        hidden = np.empty(net.arrays[1].shape[0], np.float32)
        value = forward(board, player, h, *net.arrays, logits, hidden)
        priors = np.zeros(h)
        set_priors(board, player, h, logits, priors)
        return {m: float(priors[m]) for m in moves}, float(value)

    def choose_move(self, state: GameState) -> int:
        priors, _ = self.policy(state)
        return max(priors, key=priors.__getitem__)

    def evaluate(self, state: GameState) -> dict:
        """{"value": the value head's, "moves": {move: prior}}; mover's view."""
        priors, value = self.policy(state)
        return {"value": value, "moves": priors}


class AZ(AZNet):
    """`az:N`: PUCT search of N simulations a move guided by the policy-value network.
    `noise` > 0 mixes Dirichlet(`alpha`) noise into the root's priors with that weight
    (self-play exploration)."""

    def __init__(
        self,
        seed: int | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        limits: Limits = REGISTRY_LIMITS,
        exploration: float = EXPLORATION,
        noise: float = 0.0,
        alpha: float = 1.0,
        **weights,
    ) -> None:
        super().__init__(seed, **weights)
        if simulations < 1:
            raise ValueError(f"az simulations must be at least 1, not {simulations!r}")
        if not 0 <= noise <= 1:
            raise ValueError(f"az noise must be in 0..1, not {noise!r}")
        self.simulations, self.limits = simulations, limits
        self.exploration, self.noise, self.alpha = exploration, noise, alpha

    def search(self, state: GameState) -> tuple[np.ndarray, np.ndarray, float]:
        """(visits per house, mean value per house for the mover, the network's value)."""
        require_moves(state)
        net = self.net_for(state)
        board, player, (h, kalah, ec, rl) = engine.to_arrays(state)
        noise = self.np_rng.dirichlet(np.full(h, self.alpha)) if self.noise else np.zeros(h)
        counter = np.array([0, self.simulations], np.int64)
        out = np.zeros((2, h))
        size = tree_nodes(self.simulations, h, self.limits.memory)
        with Deadline(self.limits.seconds).stopping(counter):
            value = puct(
                board, player, h, kalah, ec, rl, counter, size,
                self.exploration, noise, self.noise, net.arrays, out,
            )  # fmt: skip
        visits, sums = out
        means = np.divide(sums, visits, out=np.zeros(h), where=visits > 0)
        return visits, means, float(value)

    def choose_move(self, state: GameState) -> int:
        visits, means, _ = self.search(state)
        moves = require_moves(state)
        return max(moves, key=lambda m: (visits[m], means[m]))

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: mean value}, "visits": {move: n}}; mover's view."""
        visits, means, _ = self.search(state)
        moves = require_moves(state)
        best = max(moves, key=lambda m: (visits[m], means[m]))
        return {
            "value": float(means[best]),
            "moves": {m: float(means[m]) for m in moves},
            "visits": {m: int(visits[m]) for m in moves},
        }
