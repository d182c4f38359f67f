"""The exact search above the endgame database, in numba: fail-soft null-window alpha-beta
on relative boards (extra turns searched as the same player moving again), with the
transposition table of `table`, the table's best move searched before the other moves are
made, those ordered by extra turns, then gains, then houses nearer the store, and enhanced
transposition cutoffs. `Solver` drives it by MTD(f)."""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit
from mancala.games.sowing.solver.ranking import rank
from mancala.games.sowing.solver.rules import INF, apply_move, sides, swap_into
from mancala.games.sowing.solver.table import best_move, lower, probe, store, upper

ETC_MARGIN = 10  # enhanced transposition cutoffs only this far above the database (measured)


@njit(cache=True)
def _seeds(b):
    n = 0
    for i in range(b.shape[0]):
        n += b[i]
    return n


@njit(cache=True)
def _table_window(key, n, tt):
    """(lower bound, upper bound, best move or -1) of a board of n seeds from the table."""
    lo, hi, first = -n, n, -1
    data = probe(key, tt)
    if data >= 0:
        lo = max(lo, lower(data))
        hi = min(hi, upper(data))
        first = best_move(data)
    return lo, hi, first


@njit(cache=True)
def _bit_length(x):
    size = 0
    while x > 0:
        x >>= 1
        size += 1
    return size


@njit(cache=True)
def _remember(key, best, alpha, beta, move, work, tt):
    """Store a fail-soft result: a lower bound above the window, an upper bound below it,
    else the exact value."""
    if best >= beta:
        store(key, best, INF, move, work, tt)
    elif best <= alpha:
        store(key, -INF, best, move, work, tt)
    else:
        store(key, best, best, move, work, tt)


@njit(cache=True)
def _search(boards, kids, work, ply, alpha, beta, h, ec, nmax, db, binom, tt, counter):
    """Fail-soft alpha-beta value of boards[ply] (more than nmax seeds) for the mover.
    kids[ply] holds its children, work[ply] the gains, codes, scores and move order."""
    counter[0] += 1
    if counter[0] > counter[1]:  # out of budget: the caller throws this search away
        return 0
    start_nodes = counter[0]
    b = boards[ply]
    n = _seeds(b)
    key = rank(b, binom, 0)
    lo, hi, first = _table_window(key, n, tt)
    if lo >= beta:
        return lo
    if hi <= alpha:
        return hi
    if lo == hi:
        return lo
    alpha = max(alpha, lo)
    beta = min(beta, hi)
    # the children: cheap values taken at once, the others put in search order (this
    # hot loop stays inline: helpers here measurably slowed the search)
    gains, codes, score, order = work[ply, 0], work[ply, 1], work[ply, 2], work[ply, 3]
    count = 0
    best = -INF
    chosen = -1
    etc = n > nmax + ETC_MARGIN
    # phase 0: the table's best move alone, searched before the others are made;
    # phase 1: every other move
    for phase in range(2):
        if phase == 0:
            if first < 0:
                continue
            lo_m, hi_m = first, first + 1
        else:
            lo_m, hi_m = 0, h
        searched = count
        for m in range(lo_m, hi_m):
            if b[m] == 0 or (phase == 1 and m == first):
                continue
            child = kids[ply, m]
            child[:] = b
            gain, code = apply_move(child, m, h, ec)
            gains[m] = gain
            codes[m] = code
            v = -INF  # the exact value where cheap (game over, database), or a cutting bound
            if code == 2:
                v = gain
            else:
                nc = 0
                for i in range(2 * h):
                    nc += child[i]
                if nc <= nmax:
                    if code == 1:
                        v = gain + db[rank(child, binom, 0)]
                    else:
                        v = gain - db[rank(child, binom, h)]
                elif etc:  # enhanced transposition cutoff: a bound of the child in the table
                    cdata = probe(rank(child, binom, 0 if code == 1 else h), tt)
                    if cdata >= 0:
                        if code == 1 and gain + lower(cdata) >= beta:
                            v = gain + lower(cdata)
                        elif code == 0 and gain - upper(cdata) >= beta:
                            v = gain - upper(cdata)
            if v > -INF:
                if v > best:
                    best, chosen = v, m
                    if best >= beta:
                        break
                continue
            score[m] = 10_000 * code + 100 * gain + m  # extra turns, then gains (< 100)
            j = count
            while j > searched and score[order[j - 1]] < score[m]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = m
            count += 1
        # the ordered children, searched until one cuts
        for j in range(searched, count):
            if best >= beta:
                break
            m = order[j]
            gain = gains[m]
            a = max(alpha, best)
            if codes[m] == 1:  # the mover again: the same side's view, the window shifted
                boards[ply + 1, :] = kids[ply, m]
                sign, lo, hi = 1, a - gain, beta - gain
            else:  # the opponent: the board turned round, the window negated
                swap_into(kids[ply, m], boards[ply + 1], h)
                sign, lo, hi = -1, gain - beta, gain - a
            child_value = _search(
                boards, kids, work, ply + 1, lo, hi, h, ec, nmax, db, binom, tt, counter
            )
            v = gain + sign * child_value
            if v > best:
                best, chosen = v, m
        if best >= beta:
            break
    if counter[0] > counter[1]:
        return best  # maybe wrong below an aborted search: never stored
    _remember(key, best, alpha, beta, chosen, _bit_length(counter[0] - start_nodes), tt)
    return best


@njit(cache=True)
def trivial_value(board, h, nmax, db, binom):
    """The value of a relative board when it is over or in the database, else -INF."""
    own, other = sides(board, h)
    if own == 0 or other == 0:
        return own - other
    if own + other <= nmax:
        return np.int64(db[rank(board, binom, 0)])
    return -INF


@njit(cache=True, nogil=True)
def null_window(board, beta, h, ec, nmax, db, binom, tt, counter, boards, kids, work):
    """A fail-soft bound of the value of `board`: >= beta, or < beta (a null window).
    counter: [nodes visited, node limit]; the other arrays are `scratch_arrays`."""
    boards[0, :] = board
    zero = np.int64(0)
    return _search(boards, kids, work, zero, beta - 1, beta, h, ec, nmax, db, binom, tt, counter)


def scratch_plies(houses: int, total: int, max_seeds: int) -> int:
    """How deep a search from `total` seeds can go: a move that keeps every seed in the
    houses moves the mover's seeds forward, so at most total*(houses-1) of them follow
    each other before a level (seeds in the houses) is left."""
    return (max(total - max_seeds, 0) + 1) * (total * (houses - 1) + 1) + 2


def scratch_arrays(houses: int, plies: int) -> tuple[np.ndarray, ...]:
    """Per-ply scratch of a search `plies` deep: boards, children, work (gains, codes,
    scores, order)."""
    k = 2 * houses
    return (
        np.zeros((plies, k), np.int64),
        np.zeros((plies, houses, k), np.int64),
        np.zeros((plies, 4, houses), np.int64),
    )


def scratch_bytes(houses: int, total: int, max_seeds: int) -> int:
    """Bytes of the per-ply scratch of a search from `total` seeds (`scratch_arrays`).

    >>> scratch_bytes(6, 48, 20) < 8 << 20 < scratch_bytes(10, 400, 9)
    True
    """
    k = 2 * houses
    return 8 * scratch_plies(houses, total, max_seeds) * (k + houses * k + 4 * houses)
