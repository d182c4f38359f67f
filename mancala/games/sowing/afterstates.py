"""The positions after each move of a batch of boards seen from the mover's side: what
the zoo's afterstate networks value (`mancala.nn_lib.views.AfterstateView`).

`afterstates(rel, mask, rules)` plays every move set in `mask` (N, H) of the boards `rel`
(N, 2H+2, from the mover's side, `mancala.games.sowing.view.mover_views`) on the numba
engine and gives, for each:

- `after` (N, H, 2H+2): the board after the move, seen from the player to move then;
- `gained` (N, H): the store difference the move made for the mover (the end-of-game sweep
  included);
- `same` (N, H): whether the mover moves again (an extra turn);
- `live` (N, H): the move is set in `mask` and the game goes on after it (a game that
  ends is worth exactly `gained`).

A move's value for the mover (seeds gained from here, the teacher's unit) is then
`gained + (v if same else -v)`, where v is what the player to move after it gains from
there on.

>>> from mancala.game_state import GameState
>>> from mancala.games.sowing.engine import rules_of
>>> from mancala.games.sowing.view import mover_views
>>> state = GameState.new("kalah")
>>> rel = mover_views([state])
>>> after, gained, same, live = afterstates(rel, rel[:, :6] > 0, rules_of(state))
>>> gained[0].tolist(), same[0].tolist()            # house 2 ends in the store
([0, 0, 1, 1, 1, 1], [False, False, True, False, False, False])
>>> after[0, 2].tolist() == mover_views([state.play(2)])[0].tolist()
True
>>> after[0, 0].tolist() == mover_views([state.play(0)])[0].tolist()
True
"""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit
from mancala.games.sowing.engine import is_over, play
from mancala.games.sowing.view import view_order


def afterstates(
    rel: np.ndarray, mask: np.ndarray, rules: tuple[int, bool, bool, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(after, gained, same, live) of every move set in `mask`; see the module."""
    h, kalah, empty_capture, relay_limit = rules
    rel = np.ascontiguousarray(rel, dtype=np.int64)
    mask = np.ascontiguousarray(mask, dtype=np.bool_)
    turned = view_order(h)[1]  # the board's pits as the other player sees them
    return _afterstates(rel, mask, turned, h, kalah, empty_capture, relay_limit)


@njit(cache=True)
def _afterstates(rel, mask, turned, h, kalah, empty_capture, relay_limit):
    n_boards, width = rel.shape
    after = np.zeros((n_boards, h, width), np.int64)
    gained = np.zeros((n_boards, h), np.int64)
    same = np.zeros((n_boards, h), np.bool_)
    live = np.zeros((n_boards, h), np.bool_)
    board = np.empty(width, np.int64)
    for i in range(n_boards):
        before = rel[i, h] - rel[i, 2 * h + 1]
        for move in range(h):
            if not mask[i, move]:
                continue
            board[:] = rel[i]
            nxt = play(board, 0, move, h, kalah, empty_capture, relay_limit)
            gained[i, move] = board[h] - board[2 * h + 1] - before
            same[i, move] = nxt == 0
            live[i, move] = not is_over(board, h, kalah)
            after[i, move] = board if nxt == 0 else board[turned]
    return after, gained, same, live
