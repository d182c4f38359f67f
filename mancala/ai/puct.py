"""The one PUCT driver: AlphaZero's tree search in numba over any game's kernel adapter
(`mancala.games.search_kernel`; the registry's `kernel` trait names it), for `az` and
`az-net`.

The tree lives in arrays: a node keeps its statistics, its mover and a run of edges (one
per legal move, in increasing move order, with the policy's prior and the child, -1
before it is made). A new leaf's position is its parent's, kept in the tree, and one
move, where the game keeps positions (`kernel.stored`); else it is replayed from the root
along the path.
A new leaf is valued by the network's value head (no rollouts) and its edges get the
policy head's priors. A move is chosen by Q + c * prior * sqrt(N(parent)) / (1 +
N(child)), an unvisited move counting as its node's mean value less `fpu`; a child's
statistics are kept from the view of the player who chose it, and each node records the
mover there as the rules say (an extra turn keeps it), so values change sign where the
mover changes.

Exact values: a position the game knows exactly (a finished game; on Kalah one in the
solver's endgame database) is a leaf of that value (as the network would see it) and is
not searched further; a node one of whose moves is the best there is (a won Tak game),
or all of whose moves are exact, becomes exact too.
"""

from __future__ import annotations

import math

import numpy as np

from mancala.ai.gumbel import root_move as gumbel_root_move
from mancala.core.jit import njit
from mancala.core.tables import pool_nodes
from mancala.games.search_kernel import (
    UNKNOWN,
    evaluate,
    exact,
    is_top,
    leaf_value,
    legal,
    load,
    new_state,
    new_store,
    play,
    reset,
    save,
)

NODE_BYTES = 9 * 8  # a node's arrays
EDGE_BYTES = 3 * 8  # an edge's move, prior and child


def tree_nodes(simulations: int, memory: int, edges: int, stored: int = 0) -> int:
    """The node pool of a search: one node a simulation (and the root), within `memory`
    for nodes of `edges` edges each and `stored` bytes of a kept position.

    >>> tree_nodes(10**9, 16 << 20, 96), tree_nodes(10**9, 16 << 20, 6, 112)
    (7061, 51150)
    >>> tree_nodes(100, 16 << 20, 6, 112)
    102
    """
    return pool_nodes(simulations, memory, NODE_BYTES + EDGE_BYTES * edges + stored)


@njit(cache=True, nogil=True, inline="always")
def position(kernel, state, store, node, mover, path_moves, depth):
    """Set `state` to node `node`'s position, `depth` plies down `path_moves` from the
    root, whose mover is `mover`: the kept one where the game keeps positions, else
    replayed from the root. Returns the mover."""
    if kernel.stored > 0:
        load(kernel, store, node, state)
        return mover
    mover = reset(kernel, state)
    for k in range(depth):
        mover = play(kernel, state, mover, path_moves[k])
    return mover


@njit(cache=True, nogil=True, inline="always")
def solved(node, first, count, edge_child, exact_values, movers, kernel):
    """The exact value of `node` for its mover when a move is the best there is or every
    move is exact, else UNKNOWN."""
    best = -np.inf
    known = True
    for e in range(first[node], first[node] + count[node]):
        child = edge_child[e]
        if child < 0 or exact_values[child] == UNKNOWN:
            known = False
            continue
        value = exact_values[child] if movers[child] == movers[node] else -exact_values[child]
        if is_top(kernel, value):
            return value
        best = max(best, value)
    return best if known else UNKNOWN


@njit(cache=True, nogil=True)
def run(kernel, counter, size, c, fpu, noise, noise_frac, gumbel, schedule, out):
    """PUCT simulations from `kernel`'s root, which must not be over, until counter[0]
    passes counter[1] (a deadline lowers it to -1) or the pools of `size` nodes and their
    edges are full. `noise` (one a legal move) is mixed into the root's priors with
    weight `noise_frac`. With a `schedule` (`gumbel.considered_visits`), the root
    chooses its move as Gumbel AlphaZero's does (`gumbel.root_move`, the noise `gumbel`
    one a legal move), the tree below it by PUCT. Per legal move of the root, in
    increasing order: visits into out[0], summed value for the root's mover into out[1],
    exact value for the root's mover (UNKNOWN: not known) into out[2], prior into
    out[3]. Returns the network's value of the root."""
    room = size * kernel.edges + kernel.actions  # the root's moves fit, however many
    # the pools are written as nodes and edges are made, never all at once: a timed
    # search spends its time searching, whatever the size of its pool
    first = np.empty(size, np.int64)
    count = np.empty(size, np.int64)
    visits = np.empty(size, np.float64)
    values = np.empty(size, np.float64)  # from the view of the parent's mover
    own = np.empty(size, np.float64)  # summed value for the node's own mover
    exact_values = np.empty(size, np.float64)  # for the node's own mover
    movers = np.empty(size, np.int64)
    edge_move = np.empty(room, np.int64)
    edge_prior = np.empty(room, np.float64)
    edge_child = np.empty(room, np.int64)
    path = np.empty(size, np.int64)
    path_moves = np.empty(size, np.int64)
    moves = np.empty(kernel.actions, np.int64)
    priors = np.empty(kernel.actions, np.float64)
    store = new_store(kernel, size if kernel.stored > 0 else 1)
    state = new_state(kernel)
    mover = reset(kernel, state)
    if kernel.stored > 0:
        save(kernel, store, 0, state)
    n = legal(kernel, state, mover, moves)
    n0 = n
    root_value = evaluate(kernel, state, mover, moves, n, priors)
    for i in range(n):
        edge_move[i] = moves[i]
        edge_prior[i] = (1.0 - noise_frac) * priors[i] + noise_frac * noise[i]
        edge_child[i] = -1
    first[0], count[0], visits[0], own[0], movers[0] = 0, n, 1.0, root_value, mover
    values[0], exact_values[0] = 0.0, UNKNOWN
    used, used_edges = 1, n
    legal0 = np.ones(n, np.bool_)
    root_priors = edge_prior[:n].copy()
    root_visits = np.zeros(n, np.float64)
    root_means = np.zeros(n, np.float64)
    scratch = np.empty(n, np.float64)
    while counter[0] < counter[1] and used < size:
        counter[0] += 1
        node, depth = 0, 0
        path[0] = 0
        full = False
        while True:
            if node > 0 and exact_values[node] != UNKNOWN:
                value = leaf_value(kernel, exact_values[node])
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
            path_moves[depth] = edge_move[pick]
            depth += 1
            if edge_child[pick] >= 0:
                node = edge_child[pick]
                path[depth] = node
                continue
            mover = position(kernel, state, store, node, movers[node], path_moves, depth - 1)
            mover = play(kernel, state, mover, edge_move[pick])
            known = exact(kernel, state, mover)
            n = 0
            if known == UNKNOWN:
                n = legal(kernel, state, mover, moves)
                if used_edges + n > room:
                    full = True
                    break
            child = used  # a new leaf: valued exactly when known, else by the network
            used += 1
            edge_child[pick] = child
            path[depth] = child
            node = child
            movers[child], exact_values[child] = mover, known
            visits[child] = values[child] = own[child] = 0.0
            first[child], count[child] = used_edges, n
            if kernel.stored > 0:
                save(kernel, store, child, state)
            if known != UNKNOWN:
                value = leaf_value(kernel, known)
            else:
                value = evaluate(kernel, state, mover, moves, n, priors)
                for i in range(n):
                    edge_move[used_edges + i] = moves[i]
                    edge_prior[used_edges + i] = priors[i]
                    edge_child[used_edges + i] = -1
                used_edges += n
            break
        if full:
            break
        for k in range(depth - 1, 0, -1):  # a move the best there is, or every move exact
            up = path[k]
            exact_values[up] = solved(up, first, count, edge_child, exact_values, movers, kernel)
            if exact_values[up] == UNKNOWN:
                break
        leaf_mover = movers[node]  # `value` is for the leaf's mover
        for k in range(depth + 1):
            here = path[k]
            visits[here] += 1
            own[here] += value if movers[here] == leaf_mover else -value
            if k > 0:
                values[here] += value if movers[path[k - 1]] == leaf_mover else -value
    root_mover = movers[0]
    for i in range(count[0]):
        child = edge_child[i]
        out[0, i] = visits[child] if child >= 0 else 0.0
        out[1, i] = values[child] if child >= 0 else 0.0
        out[2, i] = UNKNOWN
        if child >= 0 and exact_values[child] != UNKNOWN:
            known = exact_values[child]
            out[2, i] = known if movers[child] == root_mover else -known
        out[3, i] = root_priors[i]
    return root_value


@njit(cache=True, nogil=True)
def _policy(kernel, moves, priors):
    state = new_state(kernel)
    mover = reset(kernel, state)
    n = legal(kernel, state, mover, moves)
    return n, evaluate(kernel, state, mover, moves, n, priors)


def search(
    kernel,
    counter: np.ndarray,
    nodes: int,
    exploration: float,
    first_play: float,
    noise: np.ndarray,
    noise_frac: float,
    gumbel: np.ndarray | None = None,
    schedule: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """(out[4, legal moves] as `run` fills it, the network's value of the root); `noise`
    has one entry a legal move, and with `gumbel` and `schedule` the root is Gumbel
    AlphaZero's."""
    out = np.zeros((4, len(noise)))
    if gumbel is None or schedule is None:
        gumbel, schedule = np.zeros(len(noise)), np.zeros(0, np.int64)
    value = run(
        kernel, counter, nodes, exploration, first_play, noise, noise_frac, gumbel, schedule,
        out,
    )  # fmt: skip
    return out, float(value)


def policy(kernel) -> tuple[list[int], np.ndarray, float]:
    """(legal moves, the policy's priors of them, the value for the mover), no search."""
    moves = np.empty(kernel.actions, np.int64)
    priors = np.empty(kernel.actions, np.float64)
    n, value = _policy(kernel, moves, priors)
    return [int(m) for m in moves[:n]], priors[:n].copy(), float(value)
