"""The game protocol (docs/architecture.md, mancala/games/__init__.py), checked over every game in
the registry by seeded random play: the attributes, the round trips of states and move
names, only legal moves accepted, games that end, hashable immutable states."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from mancala.game_state import GameState, IllegalMove
from mancala.games import (
    capabilities,
    describe,
    evaluator,
    game,
    game_names,
    new_game,
    state_from_dict,
)

SMALL = {
    "kalah": {"houses": 3, "seeds": 2},
    "sungka": {"houses": 4, "seeds": 3},
    "tak": {"size": 3},
}
MAX_PLIES = 2000  # a random game of any of these games ends well before


def starts() -> list[tuple[str, dict]]:
    return [(name, {}) for name in game_names()] + [(name, SMALL[name]) for name in game_names()]


def random_game(start, seed: int) -> list:
    """Every position of a random game from `start` (its end included)."""
    rng, states = random.Random(seed), [start]
    while not states[-1].is_over():
        assert len(states) < MAX_PLIES, "a random game did not end"
        states.append(states[-1].play(rng.choice(states[-1].legal_moves())))
    return states


def test_a_misspelt_capability_is_refused_where_it_is_declared_or_asked():
    from mancala.ai.registry import Entry, register
    from mancala.games import Game, offers

    with pytest.raises(ValueError, match="unknown capabilities solverr; choose among sowing"):
        Game("x", lambda: None, lambda d: None, "m:f", frozenset({"solverr"}))
    with pytest.raises(ValueError, match="unknown capabilities stack"):
        register("x", Entry("m:f", needs=frozenset({"stack"})))
    with pytest.raises(ValueError, match="unknown capabilities sover"):
        offers("kalah", "sover")
    assert offers("kalah", "solver") and not offers("tak", "solver")


def test_every_game_is_in_the_registry_with_its_capabilities():
    assert game_names() == ["kalah", "sungka", "tak"]
    assert "solver" in game("kalah").capabilities and "sowing" in game("sungka").capabilities
    assert game("tak").capabilities == {"fast", "tei", "stacks"}
    assert "margin" in game("sungka").capabilities and "openspiel" in game("kalah").capabilities
    with pytest.raises(ValueError, match="unknown game 'chess'; choose one of kalah, sungka, tak"):
        new_game("chess")


@pytest.mark.parametrize(("name", "options"), starts())
def test_the_opening_has_the_protocol(name, options):
    s = new_game(name, **options)
    assert s.game == name and s.player == 0 and not s.is_over() and s.winner() is None
    assert options.items() <= s.options.items()
    assert json.loads(json.dumps(s.options)) == s.options
    assert new_game(name, **s.options) == s
    assert isinstance(s.num_actions, int) and s.legal_moves()
    assert str(s) and describe(s).startswith(name)
    assert isinstance(capabilities(s), frozenset)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("name", "options"), starts())
def test_random_games_keep_the_protocol(name, options, seed):
    states = random_game(new_game(name, **options), seed)
    rng = random.Random(seed)
    for before, after in zip(states, states[1:]):
        check_state(before, rng)
        assert before != after
    end = states[-1]
    assert end.is_over() and end.legal_moves() == [] and end.winner() in (0, 1, None)
    with pytest.raises(IllegalMove):
        end.play(0)


def check_state(s, rng: random.Random) -> None:
    """One position: hashable, immutable, drawn, stored and read back exactly, its moves
    named and read back, and only its legal moves accepted."""
    assert hash(s) == hash(state_from_dict(json.loads(json.dumps(s.to_dict()))))
    assert state_from_dict(json.loads(json.dumps(s.to_dict()))) == s
    assert str(s).strip()
    with pytest.raises((AttributeError, TypeError, dataclasses.FrozenInstanceError)):
        s.player = 1 - s.player
    legal = s.legal_moves()
    assert legal == sorted(set(legal)) and all(0 <= m < s.num_actions for m in legal)
    assert s.is_over() == (not legal)
    for move in legal:
        assert s.parse_move(s.move_name(move)) == move
    for move in illegal_moves(s, legal, rng):
        with pytest.raises(IllegalMove) as error:
            s.play(move)
        assert isinstance(error.value, ValueError) and str(error.value)
    if legal:
        copy = state_from_dict(s.to_dict())
        s.play(rng.choice(legal))
        assert s == copy  # playing changed nothing in place


def illegal_moves(s, legal: list[int], rng: random.Random) -> list:
    """A few moves `s` must refuse: ids of other moves, ids out of range, non-ids."""
    others = [m for m in rng.sample(range(s.num_actions), min(5, s.num_actions)) if m not in legal]
    return [*others, -1, s.num_actions, True, "a1", 1.5, None]


@pytest.mark.parametrize(("name", "options"), starts())
def test_a_move_name_outside_the_board_is_refused(name, options):
    s = new_game(name, **options)
    for text in ("zz", "", "q9", "99"):
        with pytest.raises(IllegalMove):
            s.parse_move(text)


def test_every_dict_format_of_version_one_still_reads():
    assert state_from_dict({"board": [4] * 6 + [0] + [4] * 6 + [0]}) == GameState.new()
    sungka = GameState.new("sungka").play(3)
    assert state_from_dict(sungka.to_dict()) == sungka
    assert GameState.from_dict(sungka.to_dict()) == sungka
    with pytest.raises(ValueError, match="unknown game"):
        state_from_dict({"game": "go", "options": {}})
    with pytest.raises(ValueError):
        state_from_dict([1, 2])


def test_the_options_are_a_plain_dict_property():
    s = GameState.new(houses=4)
    assert s.options == {"houses": 4, "seeds": 4, "empty_capture": False}
    assert type(s.options) is dict
    assert type(s.to_dict()["options"]) is dict


@pytest.mark.parametrize("name", ["kalah", "sungka", "tak"])
def test_each_evaluator_is_exact_at_the_end_and_the_movers_view(name):
    value = evaluator(name)
    for seed in range(3):
        states = random_game(new_game(name, **SMALL[name]), seed)
        end = states[-1]
        v = value(end)
        if end.winner() is None:
            assert v == 0
        else:
            assert (v > 0) == (end.winner() == end.player)
        assert all(isinstance(value(s), float) for s in states[:20])
