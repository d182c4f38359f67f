"""Alpha-beta for Tak on the numba engine (`fast.py`): the generic `AlphaBeta` of
`mancala.ai.search_generic`'s algorithm (negamax, fail-soft, a sooner win preferred, the
previous depth's best moves first at the root), its moves ordered by a transposition
table of fixed size in arrays, killer moves and a history score, the moves after the
first searched with null windows, and `value`, the numba port of `evaluate.value`. Two
prunings of the engines act in nodes three plies or more from the horizon, so that
deeper values are estimates: a null move (a pass that still fails high) and late move
reductions. The tests check that both searches give every move the same value at depths
1 to 3, and that `value` equals `evaluate.value`.

`move_values(state, ...)` runs iterative deepening within a deadline: numba cannot read
a clock, so each depth runs under `Deadline.stopping(counter)` (`mancala.core.deadline`),
whose watchdog stops the kernel (compiled `nogil`); a depth cut short is thrown away and
the deepest whole one kept (depth 1 always finishes, so that there is a move).

>>> from mancala.games.tak.state import from_tps
>>> road_in_one = from_tps("2,2,2,x2/x5/x5/x5/1,1,1,1,x 1 5")
>>> values, depth, nodes = move_values(road_in_one, depth=2)
>>> sorted(road_in_one.move_name(m) for m, v in values.items() if v == WIN_VALUE - 1)
['Ce1', 'e1']
"""

from __future__ import annotations

import math
import random
import time
from contextlib import nullcontext

import numpy as np

from mancala.core.deadline import Deadline
from mancala.core.jit import njit
from mancala.core.tables import empty_table, table_bits
from mancala.games import WIN_VALUE
from mancala.games.tak.evaluate import (
    FORCED,
    HAND_WEIGHTS,
    KINDS,
    W_CAP_REACH,
    W_CENTRE,
    W_EMPTY_HELD,
    W_FLAT_HELD,
    W_GROUP,
    W_HARD,
    W_HARD_CAP,
    W_INNER_HELD,
    W_POTENTIAL,
    W_SOFT,
    W_TEMPO,
    W_THREAT,
    W_TOP,
    weights_of,
)
from mancala.games.tak.fast import (
    CAP,
    DRAW,
    FLAT,
    HEIGHTS,
    PLY,
    RESERVES,
    SIZE,
    WALL,
    _num_actions,
    _reach,
    board_bits,
    count_bits,
    edge_bits,
    flood,
    held,
    is_legal,
    legal_moves,
    lines_spanned,
    play,
    result_of,
    roads_in_one,
    roads_of,
    to_arrays,
    tops,
    unplay,
)
from mancala.games.tak.state import TakState, new_tak

DECIDED = WIN_VALUE / 2  # values this large in size are won or lost games
TT_BITS = 20  # the largest table; smaller when the memory allowed is less
TT_ENTRY_BYTES = 33  # key, value, depth, move (8 bytes each) and the bound (1)
LOWER, EXACT, UPPER = 1, 0, -1  # what a stored value is: a lower bound, exact, an upper
DEEPEST = 100  # plies (mancala.ai.limits.MAX_DEPTH)
NO_LIMIT = 2**62
NULL = 1e-6  # the width of a null window: values are multiples of 1/8
NULL_REDUCTION = 2  # a pass is searched this many plies shallower than a move
LATE = 4  # moves tried before the others (neither the table's nor a killer) go a ply less


_SLOT = np.empty(3, np.int64)  # the engine's kind codes -> their place in evaluate.KINDS
_SLOT[FLAT], _SLOT[WALL], _SLOT[CAP] = KINDS.index("F"), KINDS.index("S"), KINDS.index("C")


@njit(cache=True, nogil=True)
def value(meta, colours, weights):
    """`evaluate.value` of the position by `weights`: for the player to move, exact at
    the end."""
    on_top = tops(meta, colours)
    return _value(meta, colours, weights, _result(meta, colours, on_top), on_top)


def state_value(state: TakState) -> float:
    """`evaluate.value(state)`, compiled: the game's evaluator (the one-ply player's)."""
    return float(value(*to_arrays(state), HAND_WEIGHTS))


@njit(cache=True, nogil=True)
def _result(meta, colours, on_top):
    """`fast.result`, given the position's `tops`."""
    white, black = roads_of(on_top)
    return result_of(meta, colours, white, black)


@njit(cache=True, nogil=True)
def _value(meta, colours, weights, code, on_top):
    me = meta[PLY] % 2
    if code >= 0:
        if code == DRAW:
            return 0.0
        return WIN_VALUE if code % 2 == me else -WIN_VALUE
    return _features(meta, colours, weights, me, on_top)


@njit(cache=True, nogil=True)
def _features(meta, colours, weights, me, on_top):
    """`evaluate.value` of a position whose game goes on, for `me`, the player to move,
    given its `tops`."""
    n_side = meta[SIZE]
    flats, caps, walls = on_top
    roads = roads_of(on_top)
    empty = board_bits(n_side) & ~(roads[0] | roads[1] | walls)
    placed, slid = roads_in_one(on_top, me, n_side)
    if placed or slid:
        return FORCED  # a road in one for the player to move
    placed, slid = roads_in_one(on_top, 1 - me, n_side)
    threats = weights[W_POTENTIAL] * count_bits(placed) + weights[W_THREAT] * count_bits(slid)
    white = _groups(roads[0], n_side, weights) - _groups(roads[1], n_side, weights)
    white += _control(flats, caps, walls, empty, n_side, weights)
    mine = white if me == 0 else -white
    return weights[W_TEMPO] + _pieces(meta, colours, weights, me) + mine - threats


@njit(cache=True, nogil=True)
def _pieces(meta, colours, weights, me):
    """`evaluate.standing`'s pieces on top and under them, and its capstones' hold and
    reach, `me`'s less the other's."""
    n_side = meta[SIZE]
    squares = n_side * n_side
    score = 0.0
    for square in range(squares):
        height = meta[HEIGHTS + square]
        if height == 0:
            continue
        kind = meta[HEIGHTS + squares + square]
        slot = _SLOT[kind]
        top = colours[square, height - 1]
        v = weights[W_TOP + slot]
        row, column = square // n_side, square % n_side
        if 0 < row < n_side - 1 and 0 < column < n_side - 1:
            v += weights[W_CENTRE]
        for level in range(height - 1):
            v += weights[(W_HARD if colours[square, level] == top else W_SOFT) + slot]
        if kind == CAP and height > 1:
            if colours[square, height - 2] == top:
                v += weights[W_HARD_CAP]
            v += weights[W_CAP_REACH] * _reach_of(meta, square, height)
        score += v if top == me else -v
    return score


@njit(cache=True, nogil=True)
def _reach_of(meta, square, height):
    """The squares a stack of `height` on `square` could move its top onto, each
    direction up to `height` steps, stopped by a wall, a capstone or the edge."""
    total = 0
    for direction in range(4):
        total += min(height, _reach(meta, square, direction)[0])
    return total


@njit(cache=True, nogil=True)
def _control(flats, caps, walls, empty, n_side, weights):
    """White's hold on the board less black's (`fast.held`): empty squares, flats and
    squares off the edge held count."""
    white, black = held(flats, caps, walls, n_side)
    first_row, last_row, first_column, last_column = edge_bits(n_side)
    inner = board_bits(n_side) & ~(first_row | last_row | first_column | last_column)
    score = 0.0
    flat = flats[0] | flats[1]
    for squares, slot in ((empty, W_EMPTY_HELD), (flat, W_FLAT_HELD), (inner, W_INNER_HELD)):
        score += weights[slot] * (count_bits(white & squares) - count_bits(black & squares))
    return score


@njit(cache=True, nogil=True)
def _groups(road, n_side, weights):
    """`evaluate.standing`'s groups of one player's road squares (the bits `road`): each
    group's worth by the ranks and by the files it spans."""
    one = np.uint64(1)
    score = 0.0
    rest = road
    while rest:
        group = flood(rest & (~rest + one), road, n_side)  # the lowest square's group
        rest &= ~group
        if group & (group - one) == 0:
            continue  # one square spans one rank and one file: worth nothing
        ranks, files = lines_spanned(group, n_side)
        score += weights[W_GROUP + ranks] + weights[W_GROUP + files]
    return score


@njit(cache=True, nogil=True)
def _hash(meta, colours):
    """A 64-bit hash of the position (FNV-1a over meta and each stack's owners)."""
    x = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    for i in range(meta.shape[0]):
        x = (x ^ np.uint64(meta[i] + 2)) * prime
    squares = meta[SIZE] * meta[SIZE]
    for square in range(squares):
        for level in range(meta[HEIGHTS + square]):
            x = (x ^ np.uint64(colours[square, level] + 7)) * prime
    return x


@njit(cache=True, nogil=True)
def _search(meta, colours, weights, depth, alpha, beta, ply, tt, counter, scratch, order_info):
    """The value of the position, `ply` plies from the root, for its player to move,
    `depth` plies deep; in a null window, unless the move before was a pass, first a
    search after a pass `NULL_REDUCTION` plies shallower: when even that is at least
    `beta`, so is the position. Moves are played on `meta` and `colours` and taken back.
    `scratch` = (moves, scores): rows `d` are those of a node `d` plies from the horizon.
    `counter` = [nodes, node limit]: past the limit (which the deadline lowers to -1)
    every node returns at once. `order_info` = (killers, history, passed): the moves that
    cut off at each ply, a score by player and move, which order the moves after the
    table's best, and 1 at a ply reached by a pass."""
    tt_key, tt_value, tt_depth, tt_bound, tt_move = tt
    moves, scores = scratch
    killers, history, passed = order_info
    counter[0] += 1
    on_top = tops(meta, colours)
    code = _result(meta, colours, on_top)
    if depth == 0 or code >= 0:
        v = _value(meta, colours, weights, code, on_top)
        if abs(v) >= DECIDED:  # a sooner win is worth more
            v = math.copysign(abs(v) - ply, v)
        return v
    if counter[0] > counter[1]:
        return 0.0  # stopped: the root throws this depth away
    key = _hash(meta, colours)
    slot = np.int64(key & np.uint64(tt_key.shape[0] - 1))
    first = -1
    if tt_key[slot] == key and tt_depth[slot] >= 0:
        if is_legal(meta, colours, tt_move[slot]):  # played before any is made: checked
            first = tt_move[slot]
        if tt_depth[slot] >= depth:
            stored, bound = tt_value[slot], tt_bound[slot]
            if bound == EXACT or (bound == LOWER and stored >= beta):
                return stored
            if bound == UPPER and stored <= alpha:
                return stored
    if not passed[ply] and depth > NULL_REDUCTION and beta - alpha < 2 * NULL and _may_pass(meta):
        meta[PLY] += 1  # the player to move passes
        passed[ply + 1] = 1
        v = -_search(
            meta, colours, weights, depth - 1 - NULL_REDUCTION, -beta, -beta + NULL, ply + 1, tt,
            counter, scratch, order_info,
        )  # fmt: skip
        passed[ply + 1] = 0
        meta[PLY] -= 1
        if v >= beta and abs(v) < DECIDED:
            return v
    order, score = moves[depth], scores[depth]
    player = meta[PLY] % 2
    alpha0, best, best_move = alpha, -np.inf, -1
    n, tried = 0, 0
    i = -1 if first >= 0 else 0  # the table's move first, before the others are made
    while True:
        if i == 0:
            n = legal_moves(meta, colours, order)
            for j in range(n):
                move = order[j]
                if move == killers[ply, 0]:
                    score[j] = 2 * NO_LIMIT
                elif move == killers[ply, 1]:
                    score[j] = NO_LIMIT
                else:
                    score[j] = history[player, move]
        if i >= n:
            break
        if i < 0:
            move = first
        else:
            _bring_best(order, score, i, n)
            move = order[i]
        i += 1
        if move == first and i > 0:
            continue  # searched first
        before = play(meta, colours, move)
        low = -beta if tried == 0 else -alpha - NULL  # after the first, a null window first
        late = tried >= LATE and depth >= 3 and i > 0 and score[i - 1] < NO_LIMIT
        v = -_search(
            meta, colours, weights, depth - 1 - late, low, -alpha, ply + 1, tt, counter, scratch,
            order_info,
        )  # fmt: skip
        if late and v > alpha:  # a late move, searched a ply less, is better: in full
            v = -_search(
                meta,
                colours,
                weights,
                depth - 1,
                low,
                -alpha,
                ply + 1,
                tt,
                counter,
                scratch,
                order_info,
            )
        if tried > 0 and alpha < v < beta:  # better than the best so far: its value
            v = -_search(
                meta,
                colours,
                weights,
                depth - 1,
                -beta,
                -v,
                ply + 1,
                tt,
                counter,
                scratch,
                order_info,
            )
        unplay(meta, colours, move, before)
        tried += 1
        if v > best:
            best, best_move = v, move
        alpha = max(alpha, v)
        if alpha >= beta:
            if move != first and move != killers[ply, 0]:
                killers[ply, 1], killers[ply, 0] = killers[ply, 0], move
            history[player, move] += depth * depth
            break
    if counter[0] <= counter[1]:
        tt_key[slot], tt_value[slot], tt_depth[slot], tt_move[slot] = key, best, depth, best_move
        tt_bound[slot] = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
    return best


@njit(cache=True, nogil=True)
def _may_pass(meta):
    """Whether a pass may stand for the best move (a null move): not while either
    player is nearly out of stones or the board nearly full, where a move may hurt."""
    squares = meta[SIZE] * meta[SIZE]
    if meta[RESERVES] < 3 or meta[RESERVES + 2] < 3:
        return False
    filled = 0
    for square in range(squares):
        filled += meta[HEIGHTS + square] > 0
    return filled + 3 < squares


@njit(cache=True, nogil=True)
def _bring_best(order, score, i, n):
    """Swap the move of highest score in order[i:n] to order[i] (a selection sort done
    one step at a time: a cutoff leaves the rest unsorted)."""
    top = i
    for j in range(i + 1, n):
        if score[j] > score[top]:
            top = j
    if top != i:
        order[i], order[top] = order[top], order[i]
        score[i], score[top] = score[top], score[i]


@njit(cache=True, nogil=True)
def _root(meta, colours, weights, depth, order, exact, values, tt, counter, scratch, order_info):
    """The value of each move of `order` into `values`, for the player to move: with
    `exact` each exactly, else the best exactly and the others as upper bounds (each
    tested in a null window first, and searched again only when it is better)."""
    alpha = -np.inf
    ply = np.int64(1)
    for i in range(order.shape[0]):
        before = play(meta, colours, order[i])
        whole = exact or i == 0
        low, high = (-np.inf, np.inf) if whole else (-alpha - NULL, -alpha)
        v = -_search(
            meta, colours, weights, depth - 1, low, high, ply, tt, counter, scratch, order_info
        )
        if not exact and i > 0 and v > alpha:  # better than the best so far: its value
            v = -_search(
                meta,
                colours,
                weights,
                depth - 1,
                -np.inf,
                -alpha,
                ply,
                tt,
                counter,
                scratch,
                order_info,
            )
        unplay(meta, colours, order[i], before)
        values[i] = v
        alpha = max(alpha, v)


def new_table(bits: int) -> tuple[np.ndarray, ...]:
    """An empty table of 2**bits entries: key, value, depth (-1 empty), bound, move."""
    return empty_table(bits, np.float64, np.int8)


def move_values(
    state: TakState,
    depth: int | None = None,
    seconds: float | None = None,
    cap: float | None = None,
    memory: int = 1 << 30,
    exact: bool = False,
    seed: int | None = None,
    table: tuple[np.ndarray, ...] | None = None,
    weights: np.ndarray = HAND_WEIGHTS,
) -> tuple[dict[int, float], int, int]:
    """Iterative deepening to `depth` plies (None: as deep as time allows) within
    `seconds` (None: no time of its own; a depth that would not finish in the time left
    is not begun) and never past `cap` seconds (a depth cut short is thrown away):
    ({move: value for the mover}, the depth reached, the nodes searched). A player
    passes its own `table` (`new_table`) to keep it from move to move; else one within
    `memory` bytes is made. The moves come in the searched order (best first, ties in a
    random order drawn from `seed`): with `exact` False only the first best value is exact.
    Positions are valued by the evaluator's `weights` (`evaluate.WEIGHT_NAMES`)."""
    meta, colours = to_arrays(state)
    order = np.array(state.legal_moves(), np.int64)
    if order.size == 0:
        raise ValueError("the game is over: no move to search")
    random.Random(seed).shuffle(order)  # ties go to a random one of the best
    values = np.empty(order.size, np.float64)
    best: dict[int, float] = {}
    tt = table if table is not None else new_table(table_bits(memory, TT_ENTRY_BYTES, TT_BITS))
    counter = np.array([0, NO_LIMIT], np.int64)
    deadline = Deadline(min(seconds or math.inf, cap or math.inf))
    start, reached = time.perf_counter(), 0
    order_info = new_order_info(state.size)
    for d in range(1, (depth or DEEPEST) + 1):
        elapsed = time.perf_counter() - start
        if seconds is not None and d > 1 and deadline.remaining() <= elapsed:
            break  # the next depth would not finish in time
        scratch = _scratch(d, state.size)
        with deadline.stopping(counter) if d > 1 else nullcontext():
            _root(
                meta, colours, weights, np.int64(d), order, exact, values, tt, counter, scratch,
                order_info,
            )  # fmt: skip
        if counter[0] > counter[1]:
            break
        reached = d
        ranking = np.argsort(-values, kind="stable")
        order, values = order[ranking], values[ranking]
        best = {int(m): float(v) for m, v in zip(order, values)}
        if np.all(np.abs(values) >= DECIDED):
            break  # every move's end is known
    return best, reached, int(counter[0])


def new_order_info(size: int) -> tuple[np.ndarray, ...]:
    """What orders the moves of `_search` on a board of `size`: (killers, history,
    passed), none yet."""
    return (
        np.full((DEEPEST + 2, 2), -1, np.int64),
        np.zeros((2, _num_actions(size)), np.int64),
        np.zeros(DEEPEST + 2, np.int8),
    )


def _scratch(depth: int, size: int) -> tuple:
    """Per-depth scratch rows of `_search`: move lists and the moves' scores."""
    return (
        np.empty((depth + 1, _num_actions(size)), np.int64),
        np.empty((depth + 1, _num_actions(size)), np.int64),
    )


class Search:
    """The search of a player: its table kept from move to move (within `memory` bytes),
    its evaluator's weights (`evaluation`: a name of `evaluate.EVALUATIONS`, the fitted
    ones of each board by default, or the weights themselves), compiled (or loaded from
    numba's cache) when made, so that no timed move pays for it."""

    def __init__(self, memory: int = 1 << 30, evaluation: str | np.ndarray = "fitted") -> None:
        self.table = new_table(table_bits(memory, TT_ENTRY_BYTES, TT_BITS))
        self.evaluation = evaluation
        self.weights(new_tak(3).size)  # a bad name is refused here, not at the first move
        move_values(new_tak(3), depth=2, table=new_table(4))

    def weights(self, size: int) -> np.ndarray:
        """The weights that value positions of boards of `size`."""
        if isinstance(self.evaluation, np.ndarray):
            return self.evaluation
        return weights_of(self.evaluation, size)

    def move_values(
        self,
        state: TakState,
        depth: int | None = None,
        seconds: float | None = None,
        cap: float | None = None,
        exact: bool = False,
        seed: int | None = None,
    ) -> tuple[dict[int, float], int, int]:
        """`move_values` with this search's table and weights."""
        return move_values(
            state, depth, seconds, cap, exact=exact, seed=seed, table=self.table,
            weights=self.weights(state.size),
        )  # fmt: skip
