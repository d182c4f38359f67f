"""Tak's evaluator for the searches and the one-ply player, and a fast random playout.

`value(state)` is the position for the player to move: exact at the end (a win is
`WIN_VALUE`, a loss its negative, a draw 0); `FORCED` when the player to move has a road
in one (a piece placed or moved finishes it); else a sum of features, each counted for
the player to move and against for the other (the weights below, in flats):

- each piece on top: a flat 1, a wall 0.5, a capstone 0.75, a little more off the edge;
- each piece under it: its owner's own (a reserve no one can take) adds, the other
  player's (held down, but freed when the stack moves) takes away;
- a capstone on a stack: more when right on its owner's piece, and for each square it
  could move onto;
- each connected group of road pieces (flats and capstones on top), by the ranks and by
  the files it spans: nothing up to two, more the nearer it comes to a road;
- the squares each player holds (`held`): empty ones, flats, and more off the edge;
- the other player's roads in one, which the player to move must block, take away;
- the move: the player to move is worth a little more (`TEMPO`), since the flat count
  favours the one who places next.

The features are those of open Tak engines' hand-made evaluations, with their weights in
flats (each a multiple of 1/32, so that sums in any order are exact);
`mancala.games.tak.search` runs the same sum compiled.

>>> from mancala.games.tak.state import from_tps
>>> s = from_tps("x5/x5/x5/x5/1,1,1,x2 2 3")  # white's flats span three files of five
>>> standing(s, 0), standing(s, 1)
(3.25, 0.0)
>>> sorted(held(s)[0])  # the squares next to white's flats, and none of black's
[0, 1, 2, 3, 5, 6, 7]
>>> value(s)  # black to move: behind
-3.3125
>>> s = from_tps("2,2,2,x2/x5/x5/1,x4/x,1,1,1,1 2 5")  # a2 and b1 to e1 are white's
>>> road_in_one(s, 0)  # a1 or b2 placed, or a2 moved down to a1
({0, 6}, {0})
>>> value(s), value(from_tps("2,2,2,x2/x5/x5/1,x4/x,1,1,1,1 1 5"))
(-3.40625, 1000.0)
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from mancala.core.atomic import atomic_path
from mancala.core.paths import MODELS_DIR
from mancala.games import won_value
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.state import TakState

TOP = {"F": 1.0, "S": 0.5, "C": 0.75}  # a piece on top, by kind
HARD = {"F": 0.75, "S": 0.75, "C": 0.875}  # each of its owner's pieces under it
SOFT = {"F": -0.5, "S": -0.25, "C": -0.25}  # each of the other player's under it
CENTRE = 0.125  # a piece on top off the board's edge
GROUP = (0.0, 0.0, 0.0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75)  # by ranks (files) spanned
TEMPO = 0.625
HARD_CAP = 0.25  # a capstone on a stack, right on its owner's piece
CAP_REACH = 0.03125  # each square a capstone on a stack could move onto
POTENTIAL, THREAT = 0.25, 0.75  # each square where a placed, a moved piece makes a road
FORCED = 1000.0  # the player to move has a road in one
EMPTY_HELD, FLAT_HELD, INNER_HELD = 0.0625, 0.125, 0.03125  # each square held, by what is there

KINDS = "FSC"
# the weights as one vector: where each feature's weight is (`terms` counts each feature)
W_TEMPO, W_TOP, W_HARD, W_SOFT = 0, 1, 4, 7  # the last three: by kind, in the order of KINDS
W_CENTRE, W_HARD_CAP, W_CAP_REACH, W_GROUP = 10, 11, 12, 13  # GROUP: by ranks spanned, 0..8
W_POTENTIAL, W_THREAT, W_EMPTY_HELD, W_FLAT_HELD, W_INNER_HELD = 22, 23, 24, 25, 26
WEIGHT_NAMES = (
    "TEMPO",
    *(f"TOP_{k}" for k in KINDS),
    *(f"HARD_{k}" for k in KINDS),
    *(f"SOFT_{k}" for k in KINDS),
    "CENTRE",
    "HARD_CAP",
    "CAP_REACH",
    *(f"GROUP_{n}" for n in range(len(GROUP))),
    "POTENTIAL",
    "THREAT",
    "EMPTY_HELD",
    "FLAT_HELD",
    "INNER_HELD",
)
HAND_WEIGHTS = np.array(
    [
        TEMPO,
        *(TOP[k] for k in KINDS),
        *(HARD[k] for k in KINDS),
        *(SOFT[k] for k in KINDS),
        CENTRE,
        HARD_CAP,
        CAP_REACH,
        *GROUP,
        POTENTIAL,
        THREAT,
        EMPTY_HELD,
        FLAT_HELD,
        INNER_HELD,
    ]
)


EVALUATIONS = ("fitted", "hand")  # the shipped file of a board's fitted weights, or HAND_WEIGHTS


def weights_file(size: int, models: Path = MODELS_DIR) -> Path:
    """Where the fitted weights of the evaluation of `size`x`size` boards ship."""
    return models / TakState.game / f"evaluation-{size}.json"


def weights_files(models: Path) -> dict[int, Path]:
    """The fitted weights files in the folder `models`, by board size."""
    files = {size: weights_file(size, models) for size in PIECES}
    return {size: path for size, path in files.items() if path.is_file()}


def read_weights(path: Path) -> np.ndarray:
    """The weights of an evaluation file (JSON: "weights", each name of WEIGHT_NAMES in
    order with its weight, a multiple of 1/32); ValueError for any other file."""
    try:
        saved = json.loads(Path(path).read_text())["weights"]
        names, weights = tuple(saved), np.array(list(saved.values()), np.float64)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{path} is not an evaluation's weights: {error}") from None
    if names != WEIGHT_NAMES:
        raise ValueError(f"{path} does not weigh the evaluation's features {WEIGHT_NAMES}")
    if not np.all(np.isfinite(weights)) or np.any(weights * 32 != np.round(weights * 32)):
        raise ValueError(f"{path}: each weight must be a finite multiple of 1/32")
    return weights


def save_weights(path: Path, weights: np.ndarray, about: dict[str, Any]) -> None:
    """Write `weights` with what made them to `path`, whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = {"weights": dict(zip(WEIGHT_NAMES, map(float, weights), strict=True)), **about}
    with atomic_path(path) as temporary:
        temporary.write_text(json.dumps(saved, indent=1) + "\n")


@cache
def fitted_weights(size: int) -> np.ndarray:
    """The shipped fitted weights of boards of `size`, else HAND_WEIGHTS (none ship)."""
    path = weights_file(size)
    return read_weights(path) if path.exists() else HAND_WEIGHTS


def weights_of(evaluation: str, size: int) -> np.ndarray:
    """The weights an evaluation named in EVALUATIONS gives boards of `size`."""
    if evaluation not in EVALUATIONS:
        raise ValueError(f"evaluation must be one of {', '.join(EVALUATIONS)}, not {evaluation!r}")
    return fitted_weights(size) if evaluation == "fitted" else HAND_WEIGHTS


def value(state: TakState, weights: np.ndarray = HAND_WEIGHTS) -> float:
    """The position for the player to move (see the module text), by `weights`."""
    outcome = state.outcome
    if outcome is not None:
        return won_value(outcome.winner, state.player)
    counts = terms(state)
    return FORCED if counts is None else float(weights @ counts)


def terms(state: TakState) -> np.ndarray | None:
    """How many times each weight counts in the value of `state`, a game going on, for the
    player to move (the other player's features counted against): the value is the
    weights times these; None when the player to move has a road in one (`FORCED`)."""
    me = state.player
    placed, moved = road_in_one(state, me)
    if placed or moved:
        return None
    counts = np.zeros(len(WEIGHT_NAMES))
    counts[W_TEMPO] = 1.0
    for player in (me, 1 - me):
        counts += standing_terms(state, player) * (1 if player == me else -1)
    placed, moved = road_in_one(state, 1 - me)
    counts[W_POTENTIAL], counts[W_THREAT] = -len(placed), -len(moved)
    for player, squares in enumerate(held(state)):
        sign = 1 if player == me else -1
        for square in squares:
            stack = state.board[square]
            if not stack:
                counts[W_EMPTY_HELD] += sign
            elif stack[-1].kind == "F":
                counts[W_FLAT_HELD] += sign
            if _inner(square, state.size):
                counts[W_INNER_HELD] += sign
    return counts


def standing(state: TakState, player: int) -> float:
    """How well `player` stands: its pieces on top, what is under them, its capstones'
    hold and reach, its groups (by the hand-set weights)."""
    return float(HAND_WEIGHTS @ standing_terms(state, player))


def standing_terms(state: TakState, player: int) -> np.ndarray:
    """The counts of `standing`'s features for `player`."""
    counts = np.zeros(len(WEIGHT_NAMES))
    for square, stack in enumerate(state.board):
        if not stack or stack[-1].player != player:
            continue
        kind = KINDS.index(stack[-1].kind)
        counts[W_TOP + kind] += 1
        counts[W_CENTRE] += _inner(square, state.size)
        for piece in stack[:-1]:
            counts[(W_HARD if piece.player == player else W_SOFT) + kind] += 1
        if stack[-1].kind == "C" and len(stack) > 1:
            counts[W_HARD_CAP] += stack[-2].player == player
            counts[W_CAP_REACH] += _reach(state, square, len(stack))
    for squares in groups(state, state.road_squares(player)):
        if len(squares) > 1:  # one square spans one rank and one file: worth nothing
            counts[W_GROUP + len({square // state.size for square in squares})] += 1
            counts[W_GROUP + len({square % state.size for square in squares})] += 1
    return counts


def road_in_one(state: TakState, player: int) -> tuple[set[int], set[int]]:
    """The empty squares where a piece of `player` placed would finish a road, and the
    squares (empty or under a flat) where one of its road pieces next to them, moved
    there, would."""
    road = state.road_squares(player)
    placed, moved = set(), set()
    for square, stack in enumerate(state.board):
        if square in road or (stack and stack[-1].kind != "F"):
            continue
        if not state.joins_edges(road | {square}):
            continue
        if not stack:
            placed.add(square)
        near = road.intersection(state.neighbours(square))
        if any(state.joins_edges(road - {source} | {square}) for source in near):
            moved.add(square)
    return placed, moved


def held(state: TakState) -> tuple[set[int], set[int]]:
    """The squares each player holds: nobody those next to a wall (or under one); else
    the only player with a capstone on the square or next to it; else the player with
    more flats next to it."""
    white, black = set(), set()
    for square in range(len(state.board)):
        around = [square, *state.neighbours(square)]
        tops = [state.board[sq][-1] for sq in around if state.board[sq]]
        if any(piece.kind == "S" for piece in tops):
            continue
        capped = {piece.player for piece in tops if piece.kind == "C"}
        if len(capped) == 1:
            (white if capped == {0} else black).add(square)
            continue
        flats = [0, 0]
        for sq in around[1:]:
            if state.board[sq] and state.board[sq][-1].kind == "F":
                flats[state.board[sq][-1].player] += 1
        if flats[0] != flats[1]:
            (white if flats[0] > flats[1] else black).add(square)
    return white, black


def _reach(state: TakState, square: int, height: int) -> int:
    """The squares a stack of `height` on `square` could move its top onto: each
    direction up to `height` steps, stopped by a wall, a capstone or the edge."""
    total = 0
    for direction in range(4):
        for at in state.path(square, direction)[:height]:
            if state.board[at] and state.board[at][-1].kind != "F":
                break
            total += 1
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
