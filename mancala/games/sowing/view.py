"""A sowing board (Kalah, Sungka) seen from one player's side: the one place that turns a
board for the networks, the environments, the DQN and the solver.

A view lists that player's houses in sowing order, their store, the opponent's houses in
sowing order and the opponent's store: shape (2H+2,), int64, a batch (N, 2H+2).
`houses_of` leaves the stores out: the player's houses, then the opponent's.

>>> from mancala.game_state import GameState
>>> state = GameState.new(houses=3, seeds=2).play(0)  # player 1 to move
>>> state.board
(0, 3, 3, 0, 2, 2, 2, 0)
>>> mover_view(state).tolist(), seat_view(state, 0).tolist()
([2, 2, 2, 0, 0, 3, 3, 0], [0, 3, 3, 0, 2, 2, 2, 0])
>>> houses_of(mover_view(state)).tolist(), houses_of(mover_views([state, state])).shape
([2, 2, 2, 0, 3, 3], (2, 6))
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from mancala.game_state import GameState

SCALE = 8.0  # the networks see counts divided by this (a house holds about 4 seeds)
ONE_HOT_BINS = 16  # a one-hot house count: 0..14, and 15 or more


@lru_cache(maxsize=16)
def view_order(houses: int) -> np.ndarray:
    """Index arrays (2, 2H+2): row p lists the board's pits in player p's view order."""
    n = 2 * houses + 2
    return np.array([np.arange(n), (np.arange(n) + houses + 1) % n])


def seat_view(state: GameState, seat: int) -> np.ndarray:
    """`state`'s board seen from `seat` (0 or 1), int64 (2H+2,)."""
    return np.array(state.board, dtype=np.int64)[view_order(state.houses)[seat]]


def mover_view(state: GameState) -> np.ndarray:
    """`state`'s board seen from the player to move, int64 (2H+2,)."""
    return seat_view(state, state.player)


def mover_views(states: Sequence[GameState]) -> np.ndarray:
    """The boards of `states` (one board size) each seen from its mover, int64 (N, 2H+2)."""
    if len(states) == 1:  # one position: a plain index, the fast path of a single move
        return mover_view(states[0])[None]
    boards = np.array([state.board for state in states], dtype=np.int64)
    players = np.array([state.player for state in states], dtype=np.int64)
    return turn_boards(boards, players, states[0].houses)


def turn_boards(boards: np.ndarray, players: np.ndarray, houses: int) -> np.ndarray:
    """Boards (N, 2H+2) as `GameState.board` lays them out, seen from `players` (N,)."""
    return np.take_along_axis(boards, view_order(houses)[players], axis=1)


def houses_of(view: np.ndarray) -> np.ndarray:
    """A view (or a batch of them) without its stores: own houses, then the opponent's."""
    h = (view.shape[-1] - 2) // 2
    return np.concatenate([view[..., :h], view[..., h + 1 : 2 * h + 1]], axis=-1)
