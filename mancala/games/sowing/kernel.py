"""The sowing games' kernel adapter for the tree-search drivers (`mancala.ai.puct`,
`mancala.ai.uct`; see `mancala.games.search_kernel`).

A state is the board (the fast engine's, `engine.play`), the mover read from the rules
(an extra turn keeps it); a tree keeps each node's board (a board is a few bytes). A UCT
leaf is valued by a playout to the end (`ROLLOUTS`: greedy or random moves,
`monte_carlo.rollout`), as a win, draw or loss. An exact value is the final margin in
seeds for the mover: a finished game's, or on Kalah a position's that the solver's
endgame database holds; the network sees it squashed as its value target is
(`mancala.games.sowing.margin_value`: its value scale and score weight). No margin is
"the best there is", so a node is exact only when every move is.

The forward pass (`forward`) reads the network's one-hot input straight from the board:
its first layer is a sum of the weight rows of the counts on the board, the second a
float32 `np.dot`, so a leaf costs no Python at all.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from mancala.core.jit import njit
from mancala.game_state import GameState
from mancala.games import search_kernel
from mancala.games.search_kernel import UNKNOWN
from mancala.games.sowing import engine
from mancala.games.sowing.margin_value import margin_value
from mancala.games.sowing.monte_carlo import ROLLOUTS, rollout
from mancala.games.sowing.solver.ranking import rank
from mancala.games.sowing.view import ONE_HOT_BINS, SCALE

NO_MARGIN = -(1 << 20)  # `exact_margin`: the final margin is not known
EndgameTable = tuple[np.ndarray, np.ndarray, int]
NO_ENDGAME: EndgameTable = (np.zeros(1, np.int8), np.zeros((1, 1), np.int64), -1)
NO_WEIGHTS = tuple(np.zeros((1,) * (2 - i % 2), np.float32) for i in range(8))  # UCT's


class SowingKernel(NamedTuple):
    """One search's constants: the root (board, player), the rules, the network's arrays,
    its value scale and score weight, the endgame database (values, binomials, most
    seeds; most -1 for none), the playout policy (`ROLLOUTS`), the edge pool's room per
    node and the most legal moves (both the houses), and the bytes of a board kept per
    node."""

    board: np.ndarray
    player: int
    houses: int
    kalah: bool
    empty_capture: bool
    relay_limit: int
    weights: tuple
    scale: float
    score_weight: float
    endgame: tuple
    policy: int
    edges: int
    actions: int
    stored: int


def weights(arrays: tuple[np.ndarray, ...], state: GameState) -> tuple[np.ndarray, ...]:
    """The network's arrays as `forward` reads them: as they are."""
    return tuple(arrays)


def kernel(
    state: GameState,
    weights: tuple | None = None,
    scale: float = 1.0,
    endgame: EndgameTable | None = None,
    rollout: str | None = None,
    score_weight: float = 0.0,
) -> SowingKernel:
    """The kernel of a search from `state`: PUCT's with `weights`, UCT's with `rollout`."""
    board, player, (h, kalah, ec, rl) = engine.to_arrays(state)
    weights, endgame = weights or NO_WEIGHTS, endgame or NO_ENDGAME
    policy = ROLLOUTS[rollout or "greedy"]
    stored = board.nbytes
    return SowingKernel(
        board, player, h, kalah, ec, rl, weights, scale, score_weight, endgame, policy, h, h, stored
    )


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
def exact_margin(board, player, h, kalah, endgame, rel):
    """The final margin for `player` (to move) of a finished game, or of a Kalah position
    the endgame database `endgame` (values, binomials, most seeds) holds; else NO_MARGIN."""
    own, opp = player * (h + 1), (1 - player) * (h + 1)
    if engine.is_over(board, h, kalah):
        diff = engine.score_diff(board, h)
        return diff if player == 0 else -diff
    db, binom, most = endgame
    if not kalah or most < 0:
        return NO_MARGIN
    seeds = 0
    for i in range(h):
        rel[i], rel[h + i] = board[own + i], board[opp + i]
        seeds += board[own + i] + board[opp + i]
    if seeds > most:
        return NO_MARGIN
    return board[own + h] - board[opp + h] + db[rank(rel, binom, 0)]


def _new_state(kernel):
    h, board = kernel.houses, kernel.board
    hidden = np.empty(kernel.weights[1].shape[0], np.float32)
    rel, moves = np.empty(2 * h, np.int64), np.empty(h, np.int64)
    return board.copy(), np.empty(h, np.float32), hidden, rel, board.copy(), board.copy(), moves


def _new_store(kernel, size):
    return np.empty((size, kernel.board.shape[0]), np.int64)


def _save(kernel, store, node, state):
    store[node] = state[0]


def _load(kernel, store, node, state):
    state[0][:] = store[node]


def _reset(kernel, state):
    state[0][:] = kernel.board
    return kernel.player


def _legal(kernel, state, mover, moves):
    board, lo = state[0], mover * (kernel.houses + 1)
    n = 0
    for m in range(kernel.houses):
        if board[lo + m] > 0:
            moves[n] = m
            n += 1
    return n


def _play(kernel, state, mover, move):
    k = kernel
    return engine.play(state[0], mover, move, k.houses, k.kalah, k.empty_capture, k.relay_limit)


def _exact(kernel, state, mover):
    margin = exact_margin(state[0], mover, kernel.houses, kernel.kalah, kernel.endgame, state[3])
    return UNKNOWN if margin == NO_MARGIN else float(margin)


def _leaf_value(kernel, value):
    return margin_value(value, kernel.scale, kernel.score_weight)


def _is_top(kernel, value):
    return False


def _rollout(kernel, state, mover):
    k, work = kernel, state[4]
    work[:] = state[0]
    diff = rollout(
        work, mover, k.houses, k.kalah, k.empty_capture, k.relay_limit, k.policy, state[6],
        state[5],
    )  # fmt: skip
    result = 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)  # for player 0
    return result if mover == 0 else -result


def _evaluate(kernel, state, mover, moves, n, priors):
    board, logits, hidden = state[0], state[1], state[2]
    w1, b1, w2, b2, wp, bp, wv, bv = kernel.weights
    value = forward(board, mover, kernel.houses, w1, b1, w2, b2, wp, bp, wv, bv, logits, hidden)
    top = -np.inf
    for i in range(n):
        if logits[moves[i]] > top:
            top = logits[moves[i]]
    total = 0.0
    for i in range(n):
        priors[i] = math.exp(logits[moves[i]] - top)
        total += priors[i]
    for i in range(n):
        priors[i] /= total
    return value


search_kernel.register(SowingKernel, globals())
