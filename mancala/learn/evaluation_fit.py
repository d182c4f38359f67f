"""Tak's alpha-beta evaluation fitted to deeper searches: a learned evaluation.

The evaluation is a sum of counted features times weights (`evaluate.terms`,
`evaluate.WEIGHT_NAMES`). The positions come from recorded Tak games: each one after the
opening's random plies whose game goes on and whose player to move has no road in one.
A round labels each with the alpha-beta's value at `depth` plies under the current
weights (the best move's, for the player to move) and refits the weights by least
squares, pulled toward the current ones (`ridge`): the evaluation of a position learns
what a search `depth` plies deeper sees there, and the next round searches with it.
Positions whose search found a road, or a road in one at its horizon, are left out; the
weights of groups spanning up to two ranks stay nothing, and a weight whose feature never
varies in the data stays as it was. Each fourth game's positions are held out: the round
reports the evaluation's error against the labels there before and after the refit.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from mancala.arena.records import GameLog
from mancala.core.atomic import atomic_path
from mancala.games import new_game
from mancala.games.tak.evaluate import FORCED, W_GROUP, WEIGHT_NAMES, terms
from mancala.games.tak.search import move_values, new_table
from mancala.games.tak.state import TakState

OPENING_PLIES = 6  # plies of each game left out: the records' random openings and after
HELD_OUT = 4  # every HELD_OUT-th game's positions judge the fit
FIXED = range(W_GROUP, W_GROUP + 3)  # groups spanning up to two ranks: worth nothing


@dataclass
class Labelled:
    """Positions' feature counts (rows of `terms`), the search's values and their games."""

    counts: np.ndarray
    values: np.ndarray
    games: np.ndarray

    def held_out(self) -> np.ndarray:
        return self.games % HELD_OUT == 0


def positions(paths: Iterable[Path], size: int, count: int, seed: int) -> list[tuple[int, Any]]:
    """Up to `count` positions of the Tak games of `size` in the JSONL `paths`, drawn at
    random (`seed`): (the game's index, the position)."""
    found = []
    for index, record in enumerate(GameLog(list(paths))):
        if record.get("variant") != TakState.game or record["options"].get("size") != size:
            continue
        state = new_game(TakState.game, **record["options"])
        for ply, move in enumerate(record["moves"]):
            if ply >= OPENING_PLIES and state.outcome is None and terms(state) is not None:
                found.append((index, state))
            state = state.play(move)
    random.Random(seed).shuffle(found)
    return found[:count]


def label(drawn: list[tuple[int, Any]], weights: np.ndarray, depth: int) -> Labelled:
    """The search's values of `drawn` positions at `depth` plies by `weights` (a progress
    bar), those that found a road left out."""
    table = new_table(18)
    rows, values, games = [], [], []
    for game, state in tqdm(drawn, desc=f"depth {depth}", unit="position", file=sys.stderr):
        best = max(move_values(state, depth=depth, table=table, weights=weights)[0].values())
        if abs(best) < FORCED / 2:  # neither a road found nor one in one at the horizon
            rows.append(terms(state))
            values.append(best)
            games.append(game)
    return Labelled(np.array(rows), np.array(values), np.array(games))


def refit(data: Labelled, start: np.ndarray, ridge: float) -> np.ndarray:
    """Weights fitted to `data`'s values on its positions not held out: least squares,
    each free weight pulled toward `start`'s by `ridge`; rounded to 1/32."""
    train = ~data.held_out()
    counts, values = data.counts[train], data.values[train]
    free = counts.std(axis=0) > 0
    free[list(FIXED)] = False
    free[0] |= counts.shape[0] > 0  # the move's worth (TEMPO) is always counted once
    a = counts[:, free]
    b = values - counts[:, ~free] @ start[~free]
    n = max(len(b), 1)
    lhs = a.T @ a / n + ridge * np.eye(a.shape[1])
    fitted = np.linalg.solve(lhs, a.T @ b / n + ridge * start[free])
    weights = start.copy()
    weights[free] = fitted
    return np.round(weights * 32) / 32 + 0.0  # + 0.0: no weight of -0.0


def error(data: Labelled, weights: np.ndarray) -> float:
    """The mean squared error of `weights`' evaluation against the held-out labels."""
    held = data.held_out()
    return float(np.mean((data.counts[held] @ weights - data.values[held]) ** 2))


def save_weights(path: Path, weights: np.ndarray, about: dict[str, Any]) -> None:
    """Write `weights` with what made them to `path`, whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = {"weights": dict(zip(WEIGHT_NAMES, map(float, weights), strict=True)), **about}
    with atomic_path(path) as temporary:
        temporary.write_text(json.dumps(saved, indent=1) + "\n")
