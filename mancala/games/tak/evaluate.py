"""Tak's evaluator for the searches and the one-ply player, and a fast random playout.

`value(state)` is the position for the player to move: exact at the end (a win is
`WIN_VALUE`, a loss its negative, a draw 0), else a sum of features, each counted for the
player to move and against for the other (the weights below, in flats):

- each piece on top: a flat 1, a wall 0.5, a capstone 0.75, a little more off the edge;
- each piece under it: its owner's own (a reserve no one can take) adds, the other
  player's (held down, but freed when the stack moves) takes away;
- each connected group of road pieces (flats and capstones on top), by the ranks and by
  the files it spans: nothing up to two, more the nearer it comes to a road;
- the move: the player to move is worth a little more (`TEMPO`), since the flat count
  favours the one who places next.

The features are those of open Tak engines' hand-made evaluations, with their weights in
flats; `mancala.games.tak.search` runs the same sum compiled.

>>> from mancala.games.tak.state import from_tps
>>> s = from_tps("x5/x5/x5/x5/1,1,1,x2 2 3")  # white's flats span three files of five
>>> standing(s, 0), standing(s, 1)
(3.25, 0.0)
>>> value(s)  # black to move: behind
-2.625
"""

from __future__ import annotations

from mancala.games import WIN_VALUE
from mancala.games.tak.state import TakState

TOP = {"F": 1.0, "S": 0.5, "C": 0.75}  # a piece on top, by kind
HARD = {"F": 0.75, "S": 0.75, "C": 0.875}  # each of its owner's pieces under it
SOFT = {"F": -0.5, "S": -0.25, "C": -0.25}  # each of the other player's under it
CENTRE = 0.125  # a piece on top off the board's edge
GROUP = (0.0, 0.0, 0.0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75)  # by ranks (files) spanned
TEMPO = 0.625


def value(state: TakState) -> float:
    """The position for the player to move (see the module text)."""
    outcome = state.outcome
    me = state.player
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return WIN_VALUE if outcome.winner == me else -WIN_VALUE
    return TEMPO + standing(state, me) - standing(state, 1 - me)


def standing(state: TakState, player: int) -> float:
    """How well `player` stands: its pieces on top, what is under them, its groups."""
    total = 0.0
    for square, stack in enumerate(state.board):
        if not stack or stack[-1].player != player:
            continue
        kind = stack[-1].kind
        total += TOP[kind] + (CENTRE if _inner(square, state.size) else 0.0)
        for piece in stack[:-1]:
            total += HARD[kind] if piece.player == player else SOFT[kind]
    for squares in groups(state, state.road_squares(player)):
        rows = {square // state.size for square in squares}
        columns = {square % state.size for square in squares}
        total += GROUP[len(rows)] + GROUP[len(columns)]
    return total


def groups(state: TakState, road: set[int]) -> list[set[int]]:
    """The orthogonally connected groups of the squares `road` of `state`'s board."""
    found, seen = [], set()
    for start in sorted(road):
        if start in seen:
            continue
        group, frontier = {start}, [start]
        while frontier:
            for near in state.neighbours(frontier.pop()):
                if near in road and near not in group:
                    group.add(near)
                    frontier.append(near)
        seen |= group
        found.append(group)
    return found


def _inner(square: int, size: int) -> bool:
    row, column = divmod(square, size)
    return 0 < row < size - 1 and 0 < column < size - 1


MAX_PLAYOUT = 1000  # plies: random games end well before (docs/tak.md)


def random_playout(state: TakState, seed: int) -> int | None:
    """The winner of a uniformly random game from `state` played by the numba engine
    (None for a draw, or a game not over after MAX_PLAYOUT plies)."""
    from mancala.games.tak import fast

    meta, colours = fast.to_arrays(state)
    code, _ = fast.random_game(meta, colours, MAX_PLAYOUT, seed)
    return int(code) % 2 if 0 <= code < fast.DRAW else None
