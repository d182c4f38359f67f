"""Monte Carlo on the sowing games' fast engine (`engine.py`): the playouts of `mcts`'s
UCT (`rollout`, through the kernel adapter `kernel.py`) and the flat Monte Carlo of
`nmcts` (`flat_monte_carlo`). Randomness is numba's, seeded by the caller.
"""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit
from mancala.games.sowing import engine

ROLLOUTS = {"greedy": 1, "random": 0}  # the rollout policies' numbers, the default first


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
