"""Tak's evaluator for the searches and the one-ply player, and a fast random playout.

`value(state)` is the position for the player to move: exact at the end (a win is
`WIN_VALUE`, a loss its negative, a draw 0), else the difference of the two players'
`prospects`: flats on top (what a full board or empty reserves count), the standing
pieces that control a square, and road progress (the widest reach of a connected group
of road pieces across the board, squared, so that a group one square short of a road
counts far more than two short ones).

>>> from mancala.games.tak.state import from_tps
>>> s = from_tps("x5/x5/x5/x5/1,1,1,x2 2 3")  # white's flats reach three files of five
>>> prospects(s, 0), prospects(s, 1)
(7.5, 0.0)
>>> value(s)  # black to move: behind
-7.5
"""

from __future__ import annotations

from mancala.games import WIN_VALUE
from mancala.games.tak.state import TakState

STANDING = 0.5  # a wall or capstone on top: control, not a flat
REACH = 0.5  # times the square of the widest reach of a road group


def value(state: TakState) -> float:
    """The position for the player to move (see the module text)."""
    outcome = state.outcome
    me = state.player
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return WIN_VALUE if outcome.winner == me else -WIN_VALUE
    return prospects(state, me) - prospects(state, 1 - me)


def prospects(state: TakState, player: int) -> float:
    """How well `player` stands: flats on top, standing pieces, road reach."""
    flats = standing = 0
    road = set()
    for square, stack in enumerate(state.board):
        if stack and stack[-1].player == player:
            if stack[-1].kind == "S":
                standing += 1
                continue
            road.add(square)
            if stack[-1].kind == "F":
                flats += 1
            else:
                standing += 1
    return flats + STANDING * standing + REACH * reach(road, state.size) ** 2


def reach(road: set[int], size: int) -> int:
    """The most ranks or files that one orthogonally connected group of `road` spans."""
    best, seen = 0, set()
    for start in road:
        if start in seen:
            continue
        rows, columns, frontier = set(), set(), [start]
        seen.add(start)
        while frontier:
            square = frontier.pop()
            row, column = divmod(square, size)
            rows.add(row)
            columns.add(column)
            for near in _neighbours(square, size):
                if near in road and near not in seen:
                    seen.add(near)
                    frontier.append(near)
        best = max(best, len(rows), len(columns))
    return best


def _neighbours(square: int, size: int) -> list[int]:
    row, column = divmod(square, size)
    near = []
    if row > 0:
        near.append(square - size)
    if row < size - 1:
        near.append(square + size)
    if column > 0:
        near.append(square - 1)
    if column < size - 1:
        near.append(square + 1)
    return near


MAX_PLAYOUT = 1000  # plies: random games end well before (docs/tak.md)


def random_playout(state: TakState, seed: int) -> int | None:
    """The winner of a uniformly random game from `state` played by the numba engine
    (None for a draw, or a game not over after MAX_PLAYOUT plies)."""
    from mancala.games.tak import fast

    meta, colours = fast.to_arrays(state)
    code, _ = fast.random_game(meta, colours, MAX_PLAYOUT, seed)
    return int(code) % 2 if 0 <= code < fast.DRAW else None
