"""Monte Carlo on the sowing games' fast engine (`engine.py`), the kernels of `mcts`
(`mancala.ai.mcts`: UCT with rollouts) and `nmcts` (`mancala.ai.nmcts`: flat Monte
Carlo). Extra-turn aware: each tree node records the player to move there (read from
the position, never assumed to alternate), and a child's statistics are kept from the
point of view of the player who chose it. Randomness is numba's, seeded by the caller.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mancala.games.sowing import engine

ROLLOUTS = {"random": 0, "greedy": 1}  # the rollout policies' numbers


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


@njit(cache=True, nogil=True)
def uct(
    board0, player0, h, kalah, ec, rl, counter, size, c, policy, rng_seed, visits_out, values_out
):
    """UCT simulations until counter[0] (simulations run) passes counter[1] (the most it
    may run; a deadline lowers it to -1) in a tree of at most `size` nodes; per root move,
    visits and summed result for the root player (win 1, draw 0, loss -1) into the two
    output arrays."""
    np.random.seed(rng_seed)
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
    while counter[0] < counter[1]:
        counter[0] += 1
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
            if untried >= 0 and used == size:  # the pool is full: roll out from here
                break
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


@njit(cache=True, nogil=True)
def flat_monte_carlo(board0, player0, h, kalah, ec, rl, counter, rng_seed, out, tried):
    """Wins minus losses of `player0` after each legal first move into `out`, its playouts
    into `tried`: a playout per legal move in turn until counter[0] (playouts run) reaches
    counter[1] (the most it may run; a deadline lowers it to -1)."""
    np.random.seed(rng_seed)
    lo = player0 * (h + 1)
    moves = np.empty(h, np.int64)
    board = np.empty_like(board0)
    for m in range(h):
        out[m] = 0
        tried[m] = 0
    while counter[0] < counter[1]:
        for m in range(h):
            if board0[lo + m] == 0 or counter[0] >= counter[1]:
                continue
            counter[0] += 1
            tried[m] += 1
            board[:] = board0
            nxt = engine.play(board, player0, m, h, kalah, ec, rl)
            diff, _count = engine.random_playout(board, nxt, h, kalah, ec, rl, moves)
            if player0 == 1:
                diff = -diff
            if diff > 0:
                out[m] += 1
            elif diff < 0:
                out[m] -= 1
