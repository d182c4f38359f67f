"""The computer players the page offers: names, specs, words, games and ratings."""

from __future__ import annotations

from mancala.ai.registry import (
    available_players,
    built_for,
    describe_player,
    split_spec,
    tournament_players,
)
from mancala.games import game_names
from webapi.ratings import NOT_RATED, rating_of


def player_catalogue() -> list[dict]:
    """Every computer player that can be made here: name, spec to use, its words
    (`describe_player` of that spec), variants, and its rating in the shipped tournament
    (webapi.ratings: "rating" null and "level" "not rated" when the file does not name it).

    The spec is the registry's quick form where it has one (e.g. a shallower search),
    so a person at the page does not wait long for a move.
    """
    specs: dict[str, str] = {}
    variants: dict[str, list[str]] = {}
    for variant in game_names():
        for spec in tournament_players(variant):
            name = split_spec(spec)[0]
            specs.setdefault(name, spec)
            variants.setdefault(name, []).append(variant)
    return [
        _entry(name, specs[name], variants[name])
        for name in available_players(include_interactive=False)
        if name in variants
    ]


def _entry(name: str, spec: str, variants: list[str]) -> dict:
    rated = rating_of(spec)
    return {
        "name": name,
        "spec": spec,
        "summary": describe_player(spec),
        "variants": variants,
        "boards": built_for(spec),
        "rating": rated,
        "level": rated["level"] if rated else NOT_RATED,
    }
