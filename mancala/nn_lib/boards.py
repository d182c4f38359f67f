"""The boards the networks are made for: each game's default board, and the names and
rules of its other boards (a network of another board lives in a folder of its own,
`mancala/models/<board name>/`, its metadata naming the board).

>>> board_rules("kalah", {"seeds": 5})
{'houses': 6, 'seeds': 5, 'empty_capture': False}
>>> board_name("kalah"), board_name("kalah", {"seeds": 5}), board_name("tak", {"size": 6})
('kalah', 'kalah-seeds5', 'tak-size6')
>>> board_flags("kalah", {"seeds": 5, "empty_capture": True})
' --seeds 5 --empty-capture'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mancala.games import game_names, games_with, new_game
from mancala.nn_lib.meta import read_value

# each game's default board: the rules of its opening position when no option is given
DEFAULT_BOARDS: dict[str, dict[str, Any]] = {name: new_game(name).options for name in game_names()}
# the games with network encoders (`encoders`): the ones `mancala fit` and the DQN learn
NET_GAMES = {name: DEFAULT_BOARDS[name] for name in games_with("encoders")}


def board_rules(game: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The rules of a board of `game`: its default board's with `options` over them, keys
    of other games' rules left out; ValueError for a game without networks or rules the
    game refuses."""
    if game not in DEFAULT_BOARDS:
        raise ValueError(f"the networks play {', '.join(DEFAULT_BOARDS)}, not {game!r}")
    rules = {key: (options or {}).get(key, value) for key, value in DEFAULT_BOARDS[game].items()}
    new_game(game, **rules)  # refuses a bad size or count
    return rules


def changed_rules(game: str, options: dict[str, Any] | None) -> list[tuple[str, Any]]:
    """The rules of a board of `game` that differ from its default board's."""
    rules = board_rules(game, options)
    return [(key, value) for key, value in rules.items() if value != DEFAULT_BOARDS[game][key]]


def board_name(game: str, options: dict[str, Any] | None = None) -> str:
    """The folder of a board's weights: the game's name for its default board, else the
    name and each rule that differs ('kalah-seeds5', 'kalah-empty_capture')."""
    changed = [
        key if value is True else f"{key}{value}" for key, value in changed_rules(game, options)
    ]
    return "-".join([game, *changed])


def board_flags(game: str, options: dict[str, Any] | None) -> str:
    """The command-line options that choose a board of `game` (none for its default)."""
    return "".join(
        f" --{key.replace('_', '-')}" + ("" if value is True else f" {value}")
        for key, value in changed_rules(game, options)
    )


def file_rules(path: str | os.PathLike) -> dict[str, Any] | None:
    """The board ({"variant": game, **rules}) the weights at `path` were saved for, as
    their metadata says; None when it does not say (files saved before boards were kept:
    their game's default board)."""
    rules = read_value(path, "rules")
    if not isinstance(rules, dict) or rules.get("variant") not in DEFAULT_BOARDS:
        return None
    return rules


def trained_boards(filename: str, models: str | os.PathLike) -> list[dict[str, Any]]:
    """The boards (variant and rules) with a weights file `filename` in `models`: each
    game's default board in the game's folder, and its other boards in folders of their
    own (`board_name`) whose weights say their board."""
    found = []
    for game, options in DEFAULT_BOARDS.items():
        if (Path(models) / game / filename).is_file():
            found.append({"variant": game, **options})
        for folder in sorted(Path(models).glob(f"{game}-*")):
            path = folder / filename
            rules = file_rules(path) if path.is_file() else None
            if rules and rules["variant"] == game and board_name(game, rules) == folder.name:
                found.append({"variant": game, **board_rules(game, rules)})
    return found
