"""Alpha-beta for the sowing games on their fast engine (`engine.py`), the kernel of
`minimax` (`mancala.ai.minimax`): extra turns, a transposition table of fixed size in
arrays, move ordering (the table's move, then extra-turn moves, then from the store end).

Values are always from player 0's side (player 0 maximises, player 1 minimises), and
whose turn it is comes from the position after each move, never from alternation: an
extra turn is the same player moving again. The evaluation at the horizon is the store
difference, exact at the end of the game.
"""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit
from mancala.core.tables import empty_table
from mancala.game_state import GameState
from mancala.games.sowing import engine

INF = 1_000_000
TT_BITS = 20  # the largest table; smaller when the limits' memory is less
TT_ENTRY_BYTES = 40  # key, value, depth, flag, move: five 8-byte numbers
EXACT, LOWER, UPPER = 0, 1, 2


@njit(cache=True)
def _hash(board, player):
    x = np.uint64(1469598103934665603) + np.uint64(player)
    for i in range(board.shape[0]):
        x = (x ^ np.uint64(board[i])) * np.uint64(1099511628211)
    return x


# Numba note: a recursive function loaded from the cache segfaults when it was compiled
# for more than one signature (numba issues #6061, #6713), so every call of `_search`
# passes variables of one type (int64, never a literal constant). tests/ai/test_search.py
# checks that it has one signature.


@njit(cache=True)
def _search(board, player, depth, alpha, beta, rules, tt, counter, boards, orders):
    """Fail-soft alpha-beta; player 0's view. `tt` = (key, value, depth, flag, move)
    arrays; `boards[d]`, `orders[d]` are the scratch rows of a node `d` plies from the
    horizon (preallocated: no allocation per node). `counter` = [nodes, node limit]:
    past the limit (which a deadline may lower to -1) every node returns at once."""
    h, kalah, ec, rl = rules
    tt_key, tt_val, tt_depth, tt_flag, tt_move = tt
    counter[0] += 1
    if engine.is_over(board, h, kalah):
        return engine.score_diff(board, h)
    if depth == 0 or counter[0] > counter[1]:
        return board[h] - board[2 * h + 1]
    key = _hash(board, player)
    slot = np.int64(key & np.uint64(tt_key.shape[0] - 1))
    first = -1
    if tt_key[slot] == key:
        first = tt_move[slot]
        if tt_depth[slot] >= depth:
            v = tt_val[slot]
            f = tt_flag[slot]
            if f == EXACT or (f == LOWER and v >= beta) or (f == UPPER and v <= alpha):
                return v
    a0, b0 = alpha, beta
    lo = player * (h + 1)
    order = orders[depth]
    n = 0
    if first >= 0 and board[lo + first] > 0:
        order[0] = first
        n = 1
    for k in range(h):  # extra-turn moves first, then from the store end
        i = h - 1 - k
        if i != first and board[lo + i] > 0 and (board[lo + i] == h - i):
            order[n] = i
            n += 1
    for k in range(h):
        i = h - 1 - k
        if i != first and board[lo + i] > 0 and board[lo + i] != h - i:
            order[n] = i
            n += 1
    best = -INF if player == 0 else INF
    best_move = order[0]
    child = boards[depth]
    for j in range(n):
        m = order[j]
        child[:] = board
        nxt = engine.play(child, player, m, h, kalah, ec, rl)
        v = _search(child, nxt, depth - 1, alpha, beta, rules, tt, counter, boards, orders)
        if player == 0:
            if v > best:
                best, best_move = v, m
            alpha = max(alpha, v)
        else:
            if v < best:
                best, best_move = v, m
            beta = min(beta, v)
        if alpha >= beta:
            break
    if counter[0] <= counter[1]:
        tt_key[slot] = key
        tt_val[slot] = best
        tt_depth[slot] = depth
        tt_move[slot] = best_move
        if best <= a0:
            tt_flag[slot] = UPPER
        elif best >= b0:
            tt_flag[slot] = LOWER
        else:
            tt_flag[slot] = EXACT
    return best


@njit(cache=True, nogil=True)
def root(board, player, depth, rules, tt, counter, exact, values, boards, orders):
    """Values (player 0's view) of each legal move into `values` (-INF-1 for illegal).

    exact=True: every move searched with the full window, so every value is exact.
    exact=False: the first move gets the full window, each later one a window just wide
    enough that a value equal to the best so far is exact (values are whole numbers: for
    player 0 (alpha-1, beta)), so a move that only ties the best as a bound (it may be
    worse) never comes back equal to it. Values below the best are upper bounds.
    """
    h, kalah, ec, rl = rules
    lo = player * (h + 1)
    alpha = np.int64(-INF)
    beta = np.int64(INF)
    child = boards[depth]
    for m in range(h):
        values[m] = -INF - 1
        if board[lo + m] == 0:
            continue
        child[:] = board
        nxt = engine.play(child, player, m, h, kalah, ec, rl)
        a, b = alpha, beta
        if exact:
            a, b = np.int64(-INF), np.int64(INF)
        elif player == 0 and alpha > -INF:
            a = alpha - 1
        elif player == 1 and beta < INF:
            b = beta + 1
        v = _search(child, nxt, depth - 1, a, b, rules, tt, counter, boards, orders)
        if player == 0:
            alpha = max(alpha, v)
        else:
            beta = min(beta, v)
        values[m] = v


def scratch(board: np.ndarray, houses: int, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-depth scratch rows for `_search` to `depth` plies: child boards and move orders."""
    return (
        np.empty((depth + 1, board.shape[0]), np.int64),
        np.empty((depth + 1, houses), np.int64),
    )


_warmed = False


def warm_up() -> None:
    """Compile (or load from numba's cache) the search once, on a tiny game, so that the
    first timed move does not pay for it."""
    global _warmed
    if not _warmed:
        state = GameState.new(houses=2, seeds=1)
        board, player, rules = engine.to_arrays(state)
        values = np.empty(2, np.int64)
        counter = np.array([0, 2**62], np.int64)
        root(board, player, 2, rules, new_table(4), counter, False, values, *scratch(board, 2, 2))
        _warmed = True


def new_table(bits: int = TT_BITS) -> tuple[np.ndarray, ...]:
    """An empty transposition table of 2**bits entries: key, value, depth, flag, move."""
    return empty_table(bits, np.int64, np.int64)
