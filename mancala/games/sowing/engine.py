"""A fast engine: the rules of `mancala.game_state` compiled with numba on int arrays.

It agrees with `game_state` move for move (tests/games/test_engine.py replays thousands of
random games through both; `mancala bench` compares a million moves). Search
players run their inner loops on it.

A position is a numpy int64 array `board` (the same absolute layout as `GameState.board`)
and a `player`; the rules are four numbers made by `rules_of(state)`:
(houses, kalah, empty_capture, relay_limit). `play` changes `board` in place and
returns the player to move next.

>>> from mancala.game_state import GameState
>>> state = GameState.new("kalah")
>>> board, player, rules = to_arrays(state)
>>> int(play(board, player, 2, *rules)), board.tolist()
(0, [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0])
>>> bool((board == state.play(2).board).all())
True
"""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit
from mancala.game_state import GameState


def rules_of(state: GameState) -> tuple[int, bool, bool, int]:
    """(houses, kalah, empty_capture, relay_limit): the arguments `play` takes after move."""
    return state.houses, state.variant == "kalah", state.empty_capture, state.relay_limit


def to_arrays(state: GameState) -> tuple[np.ndarray, int, tuple[int, bool, bool, int]]:
    """The board of `state` as an int64 array, the player to move, and the rules."""
    return np.array(state.board, dtype=np.int64), state.player, rules_of(state)


@njit(cache=True)
def side_sum(board, h, player):
    """Seeds in `player`'s houses."""
    total = 0
    start = player * (h + 1)
    for i in range(start, start + h):
        total += board[i]
    return total


@njit(cache=True)
def is_over(board, h, kalah):
    """Kalah: either side is empty. Sungka: no house holds a shell."""
    s0 = side_sum(board, h, 0)
    s1 = side_sum(board, h, 1)
    if kalah:
        return s0 == 0 or s1 == 0
    return s0 == 0 and s1 == 0


@njit(cache=True)
def score_diff(board, h):
    """Player 0's seeds minus player 1's, counting houses as their owner's (the sweep)."""
    return board[h] + side_sum(board, h, 0) - board[2 * h + 1] - side_sum(board, h, 1)


@njit(cache=True)
def _sow(board, pit, skip):
    n = board.shape[0]
    seeds = board[pit]
    board[pit] = 0
    while seeds > 0:
        pit += 1
        if pit == n:
            pit = 0
        if pit != skip:
            board[pit] += 1
            seeds -= 1
    return pit


@njit(cache=True)
def _turn(board, h, wanted, other):
    if side_sum(board, h, wanted) > 0 or side_sum(board, h, other) == 0:
        return wanted
    return other


@njit(cache=True)
def play(board, player, move, h, kalah, empty_capture, relay_limit):
    """Play house `move` of `player` on `board` (in place); the player to move next.

    The move must be legal (not checked here: `game_state` checks moves).
    """
    lo = player * (h + 1)
    store = lo + h
    skip = h + (1 - player) * (h + 1)
    pit = lo + move
    if kalah:
        last = _sow(board, pit, skip)
        if lo <= last < store and board[last] == 1:
            opposite = 2 * h - last
            if board[opposite] > 0 or empty_capture:
                board[store] += 1 + board[opposite]
                board[last] = 0
                board[opposite] = 0
        nxt = player if last == store else 1 - player
        s0 = side_sum(board, h, 0)
        s1 = side_sum(board, h, 1)
        if s0 == 0 or s1 == 0:  # the end-of-game sweep
            for i in range(h):
                board[i] = 0
                board[h + 1 + i] = 0
            board[h] += s0
            board[2 * h + 1] += s1
        return nxt
    pickups = 0
    while True:
        last = _sow(board, pit, skip)
        if last == store:  # in the mover's head: move again
            return _turn(board, h, player, 1 - player)
        if board[last] > 1 and pickups < relay_limit:  # relay sowing
            pit = last
            pickups += 1
            continue
        if board[last] == 1 and lo <= last < store:  # sunog
            opposite = 2 * h - last
            board[store] += 1 + board[opposite]
            board[last] = 0
            board[opposite] = 0
        return _turn(board, h, 1 - player, player)


@njit(cache=True)
def legal_moves(board, player, h, kalah, out):
    """Write the legal moves of `player` into `out`; their count (0 when over)."""
    if is_over(board, h, kalah):
        return 0
    n = 0
    lo = player * (h + 1)
    for i in range(h):
        if board[lo + i] > 0:
            out[n] = i
            n += 1
    return n


@njit(cache=True)
def random_move(board, player, h, moves):
    """A uniformly random legal move (the game must not be over)."""
    lo = player * (h + 1)
    n = 0
    for i in range(h):
        if board[lo + i] > 0:
            moves[n] = i
            n += 1
    return moves[np.random.randint(n)]


@njit(cache=True)
def random_playout(board, player, h, kalah, empty_capture, relay_limit, moves):
    """Play random moves on `board` (in place) to the end; (score difference p0-p1, moves).

    After a move the game is over exactly when the stores hold every seed (Kalah sweeps
    the houses at the end; Sungka ends when the houses are empty): one sum, not two."""
    count = 0
    total = 0
    for i in range(board.shape[0]):
        total += board[i]
    over = is_over(board, h, kalah)
    while not over:
        move = random_move(board, player, h, moves)
        player = play(board, player, move, h, kalah, empty_capture, relay_limit)
        count += 1
        over = board[h] + board[2 * h + 1] == total
    return score_diff(board, h), count


@njit(cache=True)
def random_games(board0, player0, h, kalah, empty_capture, relay_limit, games, rng_seed):
    """Play `games` random games from `board0`; (wins of p0, of p1, draws, total moves)."""
    np.random.seed(rng_seed)
    moves = np.empty(h, np.int64)
    board = np.empty_like(board0)
    wins0 = wins1 = draws = total = 0
    for _ in range(games):
        board[:] = board0
        diff, count = random_playout(board, player0, h, kalah, empty_capture, relay_limit, moves)
        total += count
        if diff > 0:
            wins0 += 1
        elif diff < 0:
            wins1 += 1
        else:
            draws += 1
    return wins0, wins1, draws, total


@njit(cache=True)
def random_game_record(board0, player0, h, kalah, empty_capture, relay_limit, rng_seed, out):
    """One random game from `board0`: its moves written to `out`; their count."""
    np.random.seed(rng_seed)
    moves = np.empty(h, np.int64)
    board = board0.copy()
    player = player0
    count = 0
    while not is_over(board, h, kalah) and count < out.shape[0]:
        move = random_move(board, player, h, moves)
        out[count] = move
        player = play(board, player, move, h, kalah, empty_capture, relay_limit)
        count += 1
    return count
