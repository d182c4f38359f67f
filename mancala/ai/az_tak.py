"""PUCT for Tak on the numba engine (`mancala.games.tak.fast`), for `az` and `az-net`.

The tree lives in arrays: a node keeps its statistics and a run of edges (one per
legal move, in increasing action id, with the policy's prior and the child, -1 before
it is made); positions are not stored but replayed from the root along the path, a
few plies of `fast.play`. A new leaf is valued by the network's value head (no
rollouts) and its edges get the policy head's priors, a softmax over its legal moves.
The player to move alternates in Tak, so a value changes sign at every ply.

Exact values: a finished game is worth 1, 0 or -1 for the player to move there, and a
node one of whose moves wins at once (or all of whose moves are exact) is exact too,
so a road in one is played as soon as the search has seen it.

The forward pass (`forward`) runs inside the kernel on the weights of
`kernel_weights`: the first layer is a sum of the weight rows of the planes that are
not zero (`mancala.games.tak.planes`, from the mover's side; a constant plane adds its
rows' sum, computed once), and only the legal moves' policy logits are computed.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mancala.ai.gumbel import root_move as gumbel_root_move
from mancala.core.tables import pool_nodes
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
)
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.planes import channels
from mancala.games.tak.state import TakState

UNKNOWN = 2.0  # a node's exact value is not known
EDGES_PER_NODE = 96  # the edge pool's room per node (a position has 20 to 200 moves)
NODE_BYTES = 8 * 8 + 24 * EDGES_PER_NODE  # a node's arrays and its share of the edges

Weights = tuple[np.ndarray, ...]


def kernel_weights(arrays: tuple[np.ndarray, ...], size: int) -> Weights:
    """The network's float32 arrays (`PolicyValue.arrays`) as the kernel reads them:
    (pieces of a set, first layer, its rows summed per plane, its bias, second layer,
    its bias, policy kernel one row a move, policy bias, value kernel, value bias)."""
    w1, b1, w2, b2, wp, bp, wv, bv = arrays
    squares = size * size
    plane_sums = w1.reshape(channels(size), squares, -1).sum(axis=1)
    pieces = np.array(PIECES[size], np.int64)
    policy_rows = np.ascontiguousarray(wp.T)
    return pieces, w1, np.ascontiguousarray(plane_sums), b1, w2, b2, policy_rows, bp, wv, bv


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
    hidden2 = np.maximum(np.dot(np.maximum(hidden, np.float32(0.0)), w2) + b2, np.float32(0.0))
    for i in range(n):
        logits[i] = np.dot(wpt[moves[i]], hidden2) + bp[moves[i]]
    return math.tanh(np.dot(hidden2, wv) + bv[0])


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


@njit(cache=True, nogil=True)
def terminal_value(code, meta):
    """The value of a finished game (`fast.result` code) for the player to move."""
    if code == DRAW:
        return 0.0
    return 1.0 if code % 2 == meta[PLY] % 2 else -1.0


@njit(cache=True, nogil=True)
def solved(node, first, count, edge_child, exact):
    """The exact value of `node` for its mover when a move wins or every move is exact,
    else UNKNOWN."""
    best = -1.0
    known = True
    for e in range(first[node], first[node] + count[node]):
        child = edge_child[e]
        if child < 0 or exact[child] == UNKNOWN:
            known = False
            continue
        if -exact[child] == 1.0:
            return 1.0
        best = max(best, -exact[child])
    return best if known else UNKNOWN


@njit(cache=True, nogil=True)
def puct(
    meta0, colours0, counter, size, c, fpu, noise, noise_frac, weights, gumbel, schedule, out
):  # fmt: skip
    """PUCT simulations from the position (meta0, colours0), which must not be over,
    until counter[0] passes counter[1] (a deadline lowers it to -1) or the pools of
    `size` nodes and their edges are full. An unvisited move counts as its node's mean
    value less `fpu`; `noise` (one a legal move) is mixed into the root's priors with
    weight `noise_frac`. With a `schedule` (`gumbel.considered_visits`), the root
    chooses its move as Gumbel AlphaZero's does (`gumbel.root_move`, the noise `gumbel`
    one a legal move), the tree below it by PUCT. Per legal move of the root, in
    increasing action id: visits into out[0], summed value for the root's mover into
    out[1], exact value (UNKNOWN: not known) into out[2], prior into out[3]. Returns the
    network's value of the root."""
    room = size * EDGES_PER_NODE
    first = np.zeros(size, np.int64)
    count = np.zeros(size, np.int64)
    visits = np.zeros(size, np.float64)
    values = np.zeros(size, np.float64)  # from the view of the parent's mover
    own = np.zeros(size, np.float64)  # summed value for the node's own mover
    exact = np.full(size, UNKNOWN, np.float64)  # for the node's own mover
    edge_move = np.empty(room, np.int64)
    edge_prior = np.empty(room, np.float64)
    edge_child = np.full(room, -1, np.int64)
    path = np.empty(size, np.int64)
    actions = _num_actions(meta0[SIZE])
    moves = np.empty(actions, np.int64)
    logits = np.empty(actions, np.float32)
    priors = np.empty(actions, np.float64)
    hidden = np.empty(weights[3].shape[0], np.float32)
    meta, colours = meta0.copy(), colours0.copy()
    n = legal_moves(meta0, colours0, moves)
    n0 = n
    root_value = forward(meta0, colours0, moves, n, weights, logits, hidden)
    softmax_into(logits, n, priors)
    for i in range(n):
        edge_move[i] = moves[i]
        edge_prior[i] = (1.0 - noise_frac) * priors[i] + noise_frac * noise[i]
    count[0], visits[0], own[0] = n, 1.0, root_value
    used, used_edges = 1, n
    legal0 = np.ones(n, np.bool_)
    root_priors = edge_prior[:n].copy()
    root_visits = np.zeros(n, np.float64)
    root_means = np.zeros(n, np.float64)
    scratch = np.empty(n, np.float64)
    while counter[0] < counter[1] and used < size:
        counter[0] += 1
        meta[:] = meta0
        colours[:] = colours0
        node, depth = 0, 0
        path[0] = 0
        full = False
        while True:
            if node > 0 and exact[node] != UNKNOWN:
                value = exact[node]
                break
            root_n = math.sqrt(visits[node])
            first_play = own[node] / visits[node] - fpu
            best, pick = -1e300, -1
            if node == 0 and schedule.shape[0] > 0:
                for e in range(n0):
                    child = edge_child[e]
                    root_visits[e] = visits[child] if child >= 0 else 0.0
                    root_means[e] = values[child] / visits[child] if child >= 0 else 0.0
                target = schedule[min(int(visits[0]) - 1, schedule.shape[0] - 1)]
                pick = gumbel_root_move(
                    target, gumbel, root_value, root_priors, root_visits, root_means, legal0,
                    scratch,
                )  # fmt: skip
            for e in range(first[node], first[node] + (count[node] if pick < 0 else 0)):
                child = edge_child[e]
                q, seen = first_play, 0.0
                if child >= 0:
                    q, seen = values[child] / visits[child], visits[child]
                score = q + c * edge_prior[e] * root_n / (1.0 + seen)
                if score > best:
                    best, pick = score, e
            play(meta, colours, edge_move[pick])
            depth += 1
            if edge_child[pick] >= 0:
                node = edge_child[pick]
                path[depth] = node
                continue
            code = result(meta, colours)
            n = 0
            if code < 0:
                n = legal_moves(meta, colours, moves)
                if used_edges + n > room:
                    full = True
                    break
            child = used  # a new leaf: valued by the rules when over, else the network
            used += 1
            edge_child[pick] = child
            path[depth] = child
            node = child
            if code >= 0:
                exact[child] = terminal_value(code, meta)
                value = exact[child]
            else:
                value = forward(meta, colours, moves, n, weights, logits, hidden)
                softmax_into(logits, n, priors)
                first[child], count[child] = used_edges, n
                for i in range(n):
                    edge_move[used_edges + i] = moves[i]
                    edge_prior[used_edges + i] = priors[i]
                used_edges += n
            break
        if full:
            break
        for k in range(depth - 1, 0, -1):  # a move that wins, or every move exact
            up = path[k]
            exact[up] = solved(up, first, count, edge_child, exact)
            if exact[up] == UNKNOWN:
                break
        for k in range(depth + 1):  # `value` is for the leaf's mover, depth plies down
            mine = value if (depth - k) % 2 == 0 else -value
            visits[path[k]] += 1
            own[path[k]] += mine
            values[path[k]] -= mine
    for i in range(count[0]):
        child = edge_child[i]
        out[0, i] = visits[child] if child >= 0 else 0.0
        out[1, i] = values[child] if child >= 0 else 0.0
        out[2, i] = -exact[child] if child >= 0 and exact[child] != UNKNOWN else UNKNOWN
        out[3, i] = root_priors[i]
    return root_value


def tree_nodes(simulations: int, memory: int) -> int:
    """The node pool of a search: one node a simulation (and the root), within `memory`.

    >>> tree_nodes(10**9, 16 << 20), tree_nodes(100, 16 << 20)
    (7084, 102)
    """
    return pool_nodes(simulations, memory, NODE_BYTES)


def search(
    state: TakState,
    weights: Weights,
    counter: np.ndarray,
    nodes: int,
    exploration: float,
    first_play: float,
    noise: np.ndarray,
    noise_frac: float,
    gumbel: np.ndarray | None = None,
    schedule: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """(out[4, legal moves] as `puct` fills it, the network's value of the root); with
    `gumbel` and `schedule` the root is Gumbel AlphaZero's."""
    meta, colours = to_arrays(state)
    out = np.zeros((4, len(noise)))
    if gumbel is None or schedule is None:
        gumbel, schedule = np.zeros(len(noise)), np.zeros(0, np.int64)
    value = puct(
        meta, colours, counter, nodes, exploration, first_play, noise, noise_frac, weights,
        gumbel, schedule, out,
    )  # fmt: skip
    return out, float(value)


def policy(state: TakState, weights: Weights) -> tuple[list[int], np.ndarray, float]:
    """(legal moves, the policy's priors of them, the value for the mover), no search."""
    meta, colours = to_arrays(state)
    moves = np.empty(_num_actions(state.size), np.int64)
    n = legal_moves(meta, colours, moves)
    logits = np.empty(n, np.float32)
    value = forward(meta, colours, moves, n, weights, logits, np.empty(len(weights[3]), np.float32))
    priors = np.empty(n)
    softmax_into(logits, n, priors)
    return [int(m) for m in moves[:n]], priors, float(value)
