"""Fixed opening sets (mancala.arena.opening_sets): distinct, contested by the recipe's
judge, the same from the same seed; the shipped ones whole; the tournament plays them and
scores its games as pairs."""

import json

import pytest

from mancala.ai.minimax import Minimax
from mancala.arena.opening_sets import load_set, make_set, set_starts
from mancala.arena.openings import opening_value
from mancala.arena.results import Tally
from mancala.commands.tournament import main as tournament
from mancala.games import game, game_names, new_game


@pytest.mark.slow
@pytest.mark.parametrize("name", game_names())
def test_a_set_is_distinct_contested_and_repeatable(name):
    made = make_set(name, 4, seed=3)
    assert made == make_set(name, 4, seed=3)
    moves = [tuple(m) for m in made["openings"]]
    assert len(set(moves)) == 4 and made["tried"] >= 4
    judge = Minimax(seed=0, depth=game(name).openings.depth)
    for state, value in zip(set_starts(made)[0], made["values"], strict=True):
        assert not state.is_over()
        assert abs(opening_value(judge, state)) <= game(name).openings.within
        assert value == round(opening_value(judge, state), 2)


@pytest.mark.parametrize("name", game_names())
def test_the_shipped_sets_are_whole(name):
    shipped = load_set(name, "a")
    assert shipped["command"].startswith(f"mancala openings {name}")
    assert new_game(name).options.items() <= shipped["options"].items()
    assert len({tuple(m) for m in shipped["openings"]}) == len(shipped["openings"]) >= 200
    starts, moves = set_starts(shipped)
    assert len(starts) == len(moves) and not any(state.is_over() for state in starts)
    with pytest.raises(ValueError, match="no opening set 'zz'"):
        load_set(name, "zz")


def test_the_tournament_plays_a_set_and_scores_its_pairs(capsys):
    assert tournament(["3", "greedy", "luck", "--opening-set", "a", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["opening_set"] == "kalah-a"
    assert result["openings"] == load_set("kalah")["openings"][:3]
    pairs = result["pairs"]["greedy vs luck"]
    tally = Tally.from_dict(result["results"]["greedy"]["luck"])
    assert pairs["pairs"] == 3 and sum(pairs["pentanomial"]) == 3
    assert pairs["score"] == round((tally.wins + tally.draws / 2) / tally.games, 4)
    assert tournament(["3", "greedy", "luck", "--opening-set", "a"]) == 0
    out = capsys.readouterr().out
    assert "of the set kalah-a" in out and "| greedy vs luck | 3 |" in out
    assert tournament(["2", "greedy", "luck", "--opening-set", "a", "--houses", "5"]) == 2
    assert "is of kalah" in capsys.readouterr().err
