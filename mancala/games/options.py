"""The games' options on the command line, declared from the registry of games.

`add_game_options(parser, games)` adds `--variant` (the game) and the rule options of
those games (each game's `options`: `--houses`, `--seeds`, `--empty-capture`, `--size`,
`--komi`, ...), each checked on the way in; `game_options(args)` gives the options for
`new_game`, refusing one of another game.

>>> from mancala.core.cli import command_parser
>>> parser = command_parser("demo")
>>> add_game_options(parser, ("kalah", "sungka", "tak"))
>>> game_options(parser.parse_args(["--houses", "4", "--empty-capture"]))
{'houses': 4, 'empty_capture': True}
>>> game_options(parser.parse_args(["--variant", "sungka", "--empty-capture"]))
Traceback (most recent call last):
...
ValueError: --empty-capture is not a rule of sungka
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from mancala.core.cli import int_in
from mancala.games import GAMES, Option, game


def add_game_options(
    parser: argparse.ArgumentParser, games: Sequence[str], help: str = "the game"
) -> None:
    """--variant, one of `games` (the first by default), and every rule option of them."""
    parser.add_argument("--variant", choices=tuple(games), default=games[0], help=help)
    for option in _options(games):
        if option.low is None:
            parser.add_argument(option.flag, action="store_true", help=option.help)
        else:
            span = f"{option.low}..{option.high}"
            kind = int_in(option.low, option.high)
            parser.add_argument(option.flag, type=kind, help=f"{option.help} ({span})")


def game_options(args: argparse.Namespace) -> dict[str, Any]:
    """The rule options of `add_game_options`' arguments, for `mancala.games.new_game`;
    ValueError for an option of another game."""
    mine = game(args.variant).options
    for option in _options(list(GAMES)):
        if option not in mine and _given(args, option.key):
            raise ValueError(f"{option.flag} is not a rule of {args.variant}")
    return {option.key: getattr(args, option.key) for option in mine if _given(args, option.key)}


def _options(games: Sequence[str]) -> list[Option]:
    """The rule options of `games`, each once, in the registry's order."""
    found: list[Option] = []
    for name in games:
        found += [option for option in game(name).options if option not in found]
    return found


def _given(args: argparse.Namespace, key: str) -> bool:
    """Whether the option `key` was given (a number, or a switch that is set)."""
    value = getattr(args, key, None)
    return value is not None and value is not False
