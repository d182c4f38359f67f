"""Fixed sets of distinct, contested openings, one a game, so that strength figures
compare across time: shipped in mancala/data/openings/GAME-NAME.json, each with the
command that made it.

An opening is a few random plies from the game's start; it is kept when it differs from
every one kept before and a fixed search (minimax to the recipe's depth, not a player
being measured) judges it within `within` of even (the game's `OpeningRecipe`, in its
registry line) for the first player: seeds for Kalah
and Sungka, the Tak evaluator's units (flats) for Tak. From random openings one seat
often decides the game; from these, both seats are in it. A set is chosen once, before
the work it measures, and never by the players measured on it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mancala.ai.minimax import Minimax
from mancala.arena.openings import opening_value, random_opening
from mancala.core.atomic import write_json
from mancala.core.paths import DATA_DIR
from mancala.games import game as game_entry
from mancala.games import new_game
from mancala.games.replay import replayed

SETS_DIR = DATA_DIR / "openings"


def make_set(
    game: str,
    count: int,
    seed: int,
    tick: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """`count` distinct contested openings of `game` by its recipe, drawn from `seed`;
    `tick(kept, tried)` after each opening tried. ValueError when 100 tries an opening
    find too few."""
    recipe = game_entry(game).openings  # drawn from the game's default board
    start = new_game(game)
    judge = Minimax(seed=seed, depth=recipe.depth)
    rng = random.Random(seed)
    kept: list[list[int]] = []
    values: list[float] = []
    seen: set[tuple[int, ...]] = set()
    tried = 0
    while len(kept) < count:
        if tried >= 100 * count:
            raise ValueError(f"{game}: {len(kept)} contested openings in {tried} tries")
        state, moves = random_opening(start, recipe.plies, rng)
        tried += 1
        if tuple(moves) in seen or state.is_over():
            continue
        seen.add(tuple(moves))
        value = opening_value(judge, state)
        if abs(value) <= recipe.within:
            kept.append(moves)
            values.append(round(value, 2))
        if tick:
            tick(len(kept), tried)
    return {
        "game": game,
        "options": dict(start.options),
        "plies": recipe.plies,
        "judge": f"minimax:{recipe.depth}",
        "within": recipe.within,
        "seed": seed,
        "tried": tried,
        "openings": kept,
        "values": values,
    }


def set_path(game: str, name: str) -> Path:
    return SETS_DIR / f"{game}-{name}.json"


def save_set(opening_set: dict[str, Any], name: str, command: str) -> Path:
    """Write the set atomically as GAME-NAME.json, the command that made it first."""
    path = set_path(opening_set["game"], name)
    write_json(path, {"command": command, **opening_set})
    return path


def load_set(game: str, name: str = "a") -> dict[str, Any]:
    """The shipped set `name` of `game`; ValueError naming the file when there is none."""
    path = set_path(game, name)
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"no opening set {name!r} of {game}: {path} ({error})") from None


def board_set_starts(start: Any, name: str = "a") -> tuple[list[Any], list[list[int]]] | None:
    """The positions and moves (`set_starts`) of the shipped set `name` of `start`'s game
    where that set is of `start`'s rules, else None; ValueError when the game has no such
    set (`load_set`)."""
    opening_set = load_set(start.game, name)
    return set_starts(opening_set) if opening_set["options"] == dict(start.options) else None


def set_starts(opening_set: dict[str, Any]) -> tuple[list[Any], list[list[int]]]:
    """The positions of a set's openings, and their moves (for `play_pairs`)."""
    start = new_game(opening_set["game"], **opening_set["options"])
    moves = [list(m) for m in opening_set["openings"]]
    return [replayed(start, m) for m in moves], moves
