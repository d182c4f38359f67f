"""The numba UCT driver: Monte Carlo tree search over any game's kernel adapter
(`mancala.games.search_kernel`) whose module offers playouts (`ROLLOUTS`), for `mcts`.

The tree lives in arrays as PUCT's does (`mancala.ai.puct`): a node keeps its visits, its
mover (as the rules say: an extra turn keeps it) and a run of edges, one per legal move
in increasing order; a position is kept per node or replayed, as the game says. A simulation
goes down by UCB1 (mean result + c * sqrt(log(N(parent) + 1) / N(child))), expands the
first move not tried yet (unless the node pool is full), and values the leaf by the
game's `rollout` (a finished game by its result); a child's statistics are kept from
the view of the player who chose it. Randomness is numba's, seeded per search.
"""

from __future__ import annotations

import math

import numpy as np

from mancala.ai.puct import position
from mancala.core.jit import njit
from mancala.core.tables import pool_nodes
from mancala.games.search_kernel import (
    UNKNOWN,
    exact,
    legal,
    new_state,
    new_store,
    play,
    reset,
    rollout,
    save,
)

NODE_BYTES = 6 * 8  # a node's arrays
EDGE_BYTES = 2 * 8  # an edge's move and child


def tree_nodes(simulations: int, memory: int, edges: int, stored: int = 0) -> int:
    """The node pool of a search: one node a simulation (and the root), within `memory`
    for nodes of `edges` edges each and `stored` bytes of a kept position.

    >>> tree_nodes(200_000_000, 16 << 20, 6, 112), tree_nodes(100, 16 << 20, 6, 112)
    (65536, 102)
    """
    return pool_nodes(simulations, memory, NODE_BYTES + EDGE_BYTES * edges + stored)


@njit(cache=True, nogil=True)
def run(kernel, counter, size, c, rng_seed, visits_out, values_out):
    """UCT simulations from `kernel`'s root until counter[0] (simulations run) passes
    counter[1] (the most it may run; a deadline lowers it to -1; one is always run, so
    that a search started late still tries a move), in a tree of at most
    `size` nodes; per legal move of the root, in increasing order, its visits and summed
    result for the root's mover (win 1, draw 0, loss -1) into the two output arrays."""
    np.random.seed(rng_seed)
    room = size * kernel.edges + kernel.actions  # the root's moves fit, however many
    # the pools are written as nodes and edges are made, never all at once: a timed
    # search spends its time searching, whatever the size of its pool
    first = np.empty(size, np.int64)
    count = np.empty(size, np.int64)
    visits = np.empty(size, np.float64)
    values = np.empty(size, np.float64)  # from the view of the parent's mover
    movers = np.empty(size, np.int64)
    over = np.empty(size, np.bool_)  # the game is over there
    edge_move = np.empty(room, np.int64)
    edge_child = np.empty(room, np.int64)
    path = np.empty(size, np.int64)
    path_moves = np.empty(size, np.int64)
    moves = np.empty(kernel.actions, np.int64)
    store = new_store(kernel, size if kernel.stored > 0 else 1)
    state = new_state(kernel)
    movers[0] = reset(kernel, state)
    if kernel.stored > 0:
        save(kernel, store, 0, state)
    first[0], visits[0], values[0], over[0] = 0, 0.0, 0.0, False
    count[0] = legal(kernel, state, movers[0], moves)
    edge_move[: count[0]] = moves[: count[0]]
    edge_child[: count[0]] = -1
    used, used_edges = 1, count[0]
    while counter[0] < counter[1] or counter[0] == 0:  # one at least, however late
        counter[0] += 1
        node, depth, pick = 0, 0, -1
        path[0] = 0
        while not over[node]:
            untried, best, choice = -1, -1e300, -1
            log_n = math.log(visits[node] + 1.0)
            for e in range(first[node], first[node] + count[node]):
                child = edge_child[e]
                if child < 0:
                    untried = e
                    break
                score = values[child] / visits[child] + c * math.sqrt(log_n / visits[child])
                if score > best:
                    best, choice = score, e
            if untried >= 0 and (used == size or used_edges + kernel.actions > room):
                break  # the pool is full: a playout from here
            pick = untried if untried >= 0 else choice
            path_moves[depth] = edge_move[pick]
            depth += 1
            if untried >= 0:
                break
            node = edge_child[pick]
            path[depth] = node
            pick = -1
        if pick < 0:  # a playout from `node` itself
            mover = position(kernel, state, store, node, movers[node], path_moves, depth)
        else:  # expand one move
            mover = position(kernel, state, store, node, movers[node], path_moves, depth - 1)
            mover = play(kernel, state, mover, edge_move[pick])
            child = used
            used += 1
            edge_child[pick] = child
            movers[child], visits[child], values[child] = mover, 0.0, 0.0
            path[depth] = child
            if kernel.stored > 0:
                save(kernel, store, child, state)
            over[child] = exact(kernel, state, mover) != UNKNOWN
            if not over[child]:
                count[child] = legal(kernel, state, mover, moves)
                first[child] = used_edges
                edge_move[used_edges : used_edges + count[child]] = moves[: count[child]]
                edge_child[used_edges : used_edges + count[child]] = -1
                used_edges += count[child]
        result = rollout(kernel, state, mover)  # for the leaf's mover
        visits[0] += 1
        for k in range(1, depth + 1):
            child = path[k]
            visits[child] += 1
            values[child] += result if movers[path[k - 1]] == mover else -result
    for i in range(count[0]):
        child = edge_child[i]
        visits_out[i] = visits[child] if child >= 0 else 0.0
        values_out[i] = values[child] if child >= 0 else 0.0


def search(kernel, counter: np.ndarray, nodes: int, exploration: float, seed: int):
    """(visits, summed results for the root's mover), one entry a legal move of the root
    in increasing order, of a UCT search of `kernel`."""
    visits = np.zeros(kernel.actions)
    values = np.zeros(kernel.actions)
    run(kernel, counter, nodes, exploration, seed, visits, values)
    return visits, values
