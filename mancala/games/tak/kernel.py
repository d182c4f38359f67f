"""Tak's kernel adapter for the tree-search drivers (`mancala.ai.puct`, `mancala.ai.uct`;
see `mancala.games.search_kernel`), on the numba engine (`mancala.games.tak.fast`).

A state is the position (`fast.to_arrays`: meta and colours) with the forward pass's
buffers; the mover alternates. An exact value is a finished game's result for the
mover (1, 0 or -1), and a win is the best there is: a node with a move that wins at once
is exact, so a road in one is played as soon as the search has seen it.

The forward pass (`forward`) runs on the weights of `weights`: the first layer is a sum
of the weight rows of the planes that are not zero (`mancala.games.tak.planes`, from the
mover's side; a constant plane adds its rows' sum, computed once), then, for a network
whose input has them, of their feature planes' (`mancala.games.tak.features`, worked
out from those planes as the network's inputs are), and only the legal moves' policy
logits are computed.

With a guide's weights (`mancala.games.tak.guide`) in place of a network's, the kernel is
a `GuideKernel`: a leaf's value is the evaluation's, squashed by the guide's scale, and
each move's prior comes from the worth of the position it leads to by the guide's policy
weights (`guide_evaluate`).

A UCT leaf is valued by one of `ROLLOUTS`: the evaluator's value of the leaf itself
(`search.value`, squashed as the generic UCT squashes it), or a playout to the end by
random moves, the seed's weighted random moves, or the moves of the lab's SARSA table
for the board (`mancala.games.tak.policies`), scored 1, 0 or -1.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from mancala.core.jit import njit
from mancala.games import EVALUATOR_SCALE, search_kernel
from mancala.games.search_kernel import UNKNOWN
from mancala.games.tak import policies, sarsa
from mancala.games.tak.evaluate import HAND_WEIGHTS
from mancala.games.tak.fast import (
    CAP,
    DRAW,
    FLAT,
    HEIGHTS,
    PLY,
    RESERVES,
    SIZE,
    _num_actions,
    legal_moves,
    play,
    result,
    to_arrays,
    unplay,
)
from mancala.games.tak.features import FEATURES, features_into
from mancala.games.tak.guide import GuideWeights
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.planes import channels, planes_into
from mancala.games.tak.search import value as evaluator_value
from mancala.games.tak.state import TakState

EDGES_PER_NODE = 96  # the edge pool's room per node (a position has 20 to 200 moves)
ROLLOUTS = {  # the UCT leaf values, the default first
    "evaluator": policies.EVALUATOR,
    "random": policies.RANDOM,
    "weighted": policies.WEIGHTED,
    "sarsa": policies.TABLE,
}
SARSA_EPSILON = 0.1  # a SARSA playout's odds of a random move
NO_WEIGHTS = (  # a search without a network (UCT's): `weights`' layout, never read
    np.zeros(1, np.int64),
    *(np.zeros((1,) * dims, np.float32) for dims in (2, 2, 1, 2, 1, 2, 1, 1, 1)),
)

Weights = tuple[np.ndarray, ...]


class TakKernel(NamedTuple):
    """One search's constants: the root (meta, colours), the network's weights as
    `forward` reads them, the playout policy (`ROLLOUTS`) with the SARSA table and its
    Zobrist words, the edge pool's room per node, the most legal moves, and the bytes of
    a position kept per node (none: positions are replayed from the root)."""

    meta: np.ndarray
    colours: np.ndarray
    weights: tuple
    policy: int
    table: np.ndarray
    keys: tuple
    edges: int
    actions: int
    stored: int


class GuideKernel(NamedTuple):
    """One search's constants with a guide: the root (meta, colours), the value's and the
    policy's weights (`evaluate.WEIGHT_NAMES`), the value's scale, and the edge pool's
    room per node, the most legal moves and the bytes kept per node, as `TakKernel`'s."""

    meta: np.ndarray
    colours: np.ndarray
    value: np.ndarray
    policy: np.ndarray
    scale: float
    edges: int
    actions: int
    stored: int


def weights(arrays: tuple[np.ndarray, ...] | GuideWeights, state: TakState) -> Weights:
    """The network's float32 arrays (`PolicyValue.arrays`) as `forward` reads them:
    (pieces of a set, first layer, its rows summed per plane, its bias, second layer,
    its bias, policy kernel one row a move, policy bias, value kernel, value bias); a
    guide's weights as they are."""
    if isinstance(arrays, GuideWeights):
        return arrays
    size = state.size
    w1, b1, w2, b2, wp, bp, wv, bv = arrays
    seen = channels(size) * size * size  # the planes' rows; the feature planes' follow
    plane_sums = w1[:seen].reshape(channels(size), size * size, -1).sum(axis=1)
    pieces = np.array(PIECES[size], np.int64)
    policy_rows = np.ascontiguousarray(wp.T)
    return pieces, w1, np.ascontiguousarray(plane_sums), b1, w2, b2, policy_rows, bp, wv, bv


def kernel(
    state: TakState,
    weights: Weights | GuideWeights | None = None,
    scale: float = 1.0,
    endgame: tuple | None = None,
    rollout: str | None = None,
    score_weight: float = 0.0,
) -> TakKernel | GuideKernel:
    """The kernel of a search from `state`: PUCT's with a network's `weights` or a guide's,
    UCT's with `rollout` (Tak has no endgame database; a network's value has no scale
    nor score weight, a guide's its own scale)."""
    meta, colours = to_arrays(state)
    if isinstance(weights, GuideWeights):
        return GuideKernel(
            meta, colours, weights.value, weights.policy, weights.scale, EDGES_PER_NODE,
            _num_actions(state.size), 0,
        )  # fmt: skip
    table, keys = policies.NO_TABLE, policies.NO_KEYS
    if rollout == "sarsa":
        shipped = sarsa.shipped_table(state.size)
        table, keys = shipped.values, shipped.keys
    return TakKernel(
        meta, colours, weights or NO_WEIGHTS, ROLLOUTS[rollout or "evaluator"], table,
        keys, EDGES_PER_NODE, _num_actions(state.size), 0,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def forward(meta, colours, moves, n, weights, logits, hidden):
    """The value of the position for its player to move; the policy logits of its `n`
    legal `moves` into `logits[:n]`."""
    pieces, w1, plane_sums, b1, w2, b2, wpt, bp, wv, bv = weights
    n_side = meta[SIZE]
    squares = n_side * n_side
    me = meta[PLY] % 2
    stones, caps = pieces[0], pieces[1]
    kinds = 2 * n_side
    hidden[:] = b1
    for square in range(squares):
        height = meta[HEIGHTS + square]
        if height == 0:
            continue
        for depth in range(min(height, n_side)):
            theirs = 1 if colours[square, height - 1 - depth] != me else 0
            hidden += w1[(2 * depth + theirs) * squares + square]
        kind = meta[HEIGHTS + squares + square]
        if kind != FLAT:
            plane = (
                kinds + (0 if colours[square, height - 1] == me else 2) + (1 if kind == CAP else 0)
            )
            hidden += w1[plane * squares + square]
        hidden += w1[(kinds + 4) * squares + square] * np.float32(height / (2 * (stones + caps)))
    for i in range(2):
        player = me if i == 0 else 1 - me
        hidden += plane_sums[kinds + 5 + 2 * i] * np.float32(meta[RESERVES + 2 * player] / stones)
        if caps > 0:
            left = meta[RESERVES + 2 * player + 1]
            hidden += plane_sums[kinds + 6 + 2 * i] * np.float32(left / caps)
    hidden += plane_sums[kinds + 9]  # the mover's side: "to move" is 1
    seen = plane_sums.shape[0]  # the planes' channels; rows past theirs are the feature planes'
    if w1.shape[0] > seen * squares:
        _add_features(meta, colours, me, stones, caps, w1, seen, len(bp), hidden)
    hidden2 = np.maximum(np.dot(np.maximum(hidden, np.float32(0.0)), w2) + b2, np.float32(0.0))
    for i in range(n):
        logits[i] = np.dot(wpt[moves[i]], hidden2) + bp[moves[i]]
    return math.tanh(np.dot(hidden2, wv) + bv[0])


@njit(cache=True, nogil=True)
def _add_features(meta, colours, me, stones, caps, w1, planes, actions, hidden):
    """Add to `hidden` the first layer's rows of the position's feature planes, seen from
    `me` (they follow the rows of its `planes` planes)."""
    n_side = meta[SIZE]
    squares = n_side * n_side
    first = planes * squares
    seen = np.empty((1, planes, n_side, n_side), np.float32)
    planes_into(meta, colours, me, stones, caps, seen[0])
    extra = np.zeros((1, FEATURES, n_side, n_side), np.float32)
    features_into(seen, stones, caps, actions, extra)
    for feature in range(FEATURES):
        for square in range(squares):
            amount = extra[0, feature, square // n_side, square % n_side]
            if amount != 0:
                hidden += w1[first + feature * squares + square] * amount


@njit(cache=True, nogil=True)
def softmax_into(logits, n, out):
    """The softmax of `logits[:n]` into `out[:n]`."""
    top = logits[:n].max()
    total = 0.0
    for i in range(n):
        out[i] = math.exp(logits[i] - top)
        total += out[i]
    for i in range(n):
        out[i] /= total


def _new_state(kernel):
    logits = np.empty(kernel.actions, np.float32)
    hidden = np.empty(kernel.weights[3].shape[0], np.float32)
    moves = np.empty(kernel.actions, np.int64)
    return kernel.meta.copy(), kernel.colours.copy(), logits, hidden, moves


def _new_store(kernel, size):
    return np.empty((1, 1), np.int64)  # positions are replayed, not kept


def _save(kernel, store, node, state):
    return None


def _load(kernel, store, node, state):
    return None


def _reset(kernel, state):
    state[0][:] = kernel.meta
    state[1][:] = kernel.colours
    return kernel.meta[PLY] % 2


def _legal(kernel, state, mover, moves):
    return legal_moves(state[0], state[1], moves)


def _play(kernel, state, mover, move):
    play(state[0], state[1], move)
    return state[0][PLY] % 2


def _exact(kernel, state, mover):
    code = result(state[0], state[1])
    if code < 0:
        return UNKNOWN
    if code == DRAW:
        return 0.0
    return 1.0 if code % 2 == mover else -1.0


def _leaf_value(kernel, value):
    return value


def _is_top(kernel, value):
    return value == 1.0


def _rollout(kernel, state, mover):
    meta, colours = state[0], state[1]
    if kernel.policy == policies.EVALUATOR:
        return math.tanh(evaluator_value(meta, colours, HAND_WEIGHTS) / EVALUATOR_SCALE)
    code = policies.playout(
        meta, colours, kernel.policy, kernel.table, kernel.keys, SARSA_EPSILON, state[4]
    )
    if code == DRAW:
        return 0.0
    return 1.0 if code % 2 == mover else -1.0


def _evaluate(kernel, state, mover, moves, n, priors):
    value = forward(state[0], state[1], moves, n, kernel.weights, state[2], state[3])
    softmax_into(state[2], n, priors)
    return value


@njit(cache=True, nogil=True)
def guide_evaluate(meta, colours, value, policy, scale, moves, n, worth, priors):
    """A guide's value of the position for its player to move; the priors of its `n`
    legal `moves` into `priors[:n]`: the softmax of the worth, by the `policy` weights,
    of the position each leads to for the player who made it (`worth` is scratch)."""
    for i in range(n):
        before = play(meta, colours, moves[i])
        worth[i] = -evaluator_value(meta, colours, policy)
        unplay(meta, colours, moves[i], before)
    softmax_into(worth, n, priors)
    return math.tanh(evaluator_value(meta, colours, value) / scale)


def _guide_state(kernel):
    return kernel.meta.copy(), kernel.colours.copy(), np.empty(kernel.actions, np.float64)


def _guide_rollout(kernel, state, mover):
    return math.tanh(evaluator_value(state[0], state[1], kernel.value) / kernel.scale)


def _guide_evaluate(kernel, state, mover, moves, n, priors):
    meta, colours = state[0], state[1]
    return guide_evaluate(
        meta, colours, kernel.value, kernel.policy, kernel.scale, moves, n, state[2], priors
    )


search_kernel.register(TakKernel, globals())
search_kernel.register(
    GuideKernel,
    {
        **globals(),
        "_new_state": _guide_state,
        "_rollout": _guide_rollout,
        "_evaluate": _guide_evaluate,
    },
)
