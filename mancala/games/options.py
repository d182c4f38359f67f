"""The games' rule options, from the registry of games: which each game takes, and which
of those given are the rules of one game.

`rule_options(games)` lists the rule options of those games (each game's `options`:
`--houses`, `--seeds`, `--empty-capture`, `--size`, `--komi`, ...), each once;
`options_for(variant, given)` gives the options for `new_game` of those `given` (by key),
refusing one of another game. The command line declares them as `--variant` and one
option each (`mancala.commands.options`).

>>> options_for("kalah", {"houses": 4, "empty_capture": True})
{'houses': 4, 'empty_capture': True}
>>> options_for("sungka", {"empty_capture": True})
Traceback (most recent call last):
...
ValueError: --empty-capture is not a rule of sungka
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mancala.games import GAMES, Option, game


def options_for(variant: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The rule options `given` (by key; only those given), for `mancala.games.new_game`
    of `variant`; ValueError for an option of another game."""
    mine = game(variant).options
    for option in rule_options(list(GAMES)):
        if option not in mine and option.key in given:
            raise ValueError(f"{option.flag} is not a rule of {variant}")
    return {option.key: given[option.key] for option in mine if option.key in given}


def rule_options(games: Sequence[str]) -> list[Option]:
    """The rule options of `games`, each once, in the registry's order."""
    found: list[Option] = []
    for name in games:
        found += [option for option in game(name).options if option not in found]
    return found
