"""Tak's move policies in numba, for playouts and for the SARSA learner: a random move, the
seed's weighted random move, and an epsilon-greedy move over a SARSA table; `playout`
plays one of them to the end of the game.

A SARSA table is a flat float32 array of 2**bits action values. A position is aggregated
to its features as its mover sees them (each square's top piece, kind and owner, and
its stack's height up to 3; both players' reserves up to 3 stones and whether the
capstone is left; the opening plies, where each side places the other's flat), hashed
the Zobrist way (`new_keys`: one random 64-bit word a square and feature, a reserves
pattern and an action), and an action's entry is the low bits of the position's hash
xor the action's word: positions with the same features share their values, and the
table's size is bounded whatever the board. Randomness is numba's, seeded by the caller.

>>> from mancala.games.tak.state import new_tak
>>> from mancala.games.tak.fast import to_arrays
>>> meta, colours = to_arrays(new_tak(3))
>>> keys = new_keys(3)
>>> int(position_key(meta, colours, *keys[:2])) == int(position_key(meta, colours, *keys[:2]))
True
"""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit
from mancala.games.tak.actions import num_actions
from mancala.games.tak.fast import (
    DRAW,
    HEIGHTS,
    PLY,
    RESERVES,
    SIZE,
    legal_moves,
    play,
    result,
)

# the playout policies a Tak kernel offers, by number ("evaluator" values a leaf without one)
EVALUATOR, RANDOM, WEIGHTED, TABLE = 0, 1, 2, 3
PLACE = 0.5  # the weighted policy's odds of placing when it may also move a stack
MOST_PLIES = 1000  # a playout this long is scored a draw
TOPS = 1 + 3 * 2 * 3  # an empty square, or top kind x owner x height class


def new_keys(size: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Zobrist words of a `size` board's table: per square and feature, per
    reserves pattern, per action (int64, from a generator seeded by `seed`)."""
    rng = np.random.default_rng(seed)
    words = rng.integers(-(2**63), 2**63 - 1, size=size * size * TOPS + 64 + 1, dtype=np.int64)
    squares = words[: size * size * TOPS].reshape(size * size, TOPS)
    reserves = words[size * size * TOPS :]
    actions = np.random.default_rng(seed + 1).integers(
        -(2**63), 2**63 - 1, size=num_actions(size), dtype=np.int64
    )
    return np.ascontiguousarray(squares), reserves, actions


@njit(cache=True, nogil=True)
def position_key(meta, colours, square_keys, reserve_keys):
    """The 64-bit hash of the position's features as its mover sees them."""
    squares = meta[SIZE] * meta[SIZE]
    me = meta[PLY] % 2
    key = np.int64(0)
    for square in range(squares):
        height = meta[HEIGHTS + square]
        if height == 0:
            continue
        kind = meta[HEIGHTS + squares + square]
        theirs = 1 if colours[square, height - 1] != me else 0
        key ^= square_keys[square, 1 + (kind * 2 + theirs) * 3 + min(height, 3) - 1]
    pattern = 0
    for i in range(2):
        player = me if i == 0 else 1 - me
        stones = min(meta[RESERVES + 2 * player], 3)
        cap = 1 if meta[RESERVES + 2 * player + 1] > 0 else 0
        pattern = pattern * 8 + stones * 2 + cap
    key ^= reserve_keys[pattern]
    if meta[PLY] < 2:
        key ^= reserve_keys[64]
    return key


@njit(cache=True, nogil=True)
def entry(key, action, action_keys, mask):
    """The table entry of `action` in the position hashed to `key`."""
    return (key ^ action_keys[action]) & mask


@njit(cache=True, nogil=True)
def random_move(moves, n):
    return moves[np.random.randint(n)]


@njit(cache=True, nogil=True)
def weighted_move(meta, moves, n):
    """Place or move a stack with even odds (when both are possible), then a random move
    of that kind (placements are the ids below 3 * squares, listed first)."""
    placements = 3 * meta[SIZE] * meta[SIZE]
    places = 0
    while places < n and moves[places] < placements:
        places += 1
    if places == 0 or (places < n and np.random.random() >= PLACE):
        return moves[places + np.random.randint(n - places)]
    return moves[np.random.randint(places)]


@njit(cache=True, nogil=True)
def table_move(meta, colours, moves, n, table, keys, epsilon):
    """(move, its table entry): a random move with odds `epsilon`, else one of highest
    value in `table` (ties at random); `keys` as `new_keys` makes them."""
    square_keys, reserve_keys, action_keys = keys
    key = position_key(meta, colours, square_keys, reserve_keys)
    mask = table.shape[0] - 1
    if np.random.random() < epsilon:
        move = moves[np.random.randint(n)]
        return move, entry(key, move, action_keys, mask)
    best, pick, ties = -np.inf, 0, 0
    for i in range(n):
        value = table[entry(key, moves[i], action_keys, mask)]
        if value > best:
            best, pick, ties = value, i, 1
        elif value == best:
            ties += 1
            if np.random.randint(ties) == 0:
                pick = i
    return moves[pick], entry(key, moves[pick], action_keys, mask)


@njit(cache=True, nogil=True)
def policy_move(meta, colours, moves, n, policy, table, keys, epsilon):
    """A move of `policy` (RANDOM, WEIGHTED or TABLE)."""
    if policy == WEIGHTED:
        return weighted_move(meta, moves, n)
    if policy == TABLE:
        return table_move(meta, colours, moves, n, table, keys, epsilon)[0]
    return random_move(moves, n)


@njit(cache=True, nogil=True)
def playout(meta, colours, policy, table, keys, epsilon, moves):
    """Play `policy`'s moves in place to the end; the `fast.result` code (DRAW after
    MOST_PLIES)."""
    for _ in range(MOST_PLIES):
        code = result(meta, colours)
        if code >= 0:
            return code
        n = legal_moves(meta, colours, moves)
        play(meta, colours, policy_move(meta, colours, moves, n, policy, table, keys, epsilon))
    code = result(meta, colours)
    return code if code >= 0 else DRAW


NO_TABLE = np.zeros(1, np.float32)  # a kernel's table when its playouts need none
NO_KEYS = (np.zeros((1, TOPS), np.int64), np.zeros(65, np.int64), np.zeros(1, np.int64))
