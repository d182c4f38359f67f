"""The game-pair runner (mancala.arena.pairs): each opening played twice with the seats
swapped, scored as pairs, whatever the game."""

import random

import pytest

from mancala.ai.base import Player
from mancala.ai.registry import make_player
from mancala.arena.match import play_games
from mancala.arena.openings import random_openings
from mancala.arena.pairs import play_pairs
from mancala.arena.results import Tally
from mancala.games import new_game


class FirstMove(Player):
    """Always the first legal move: with it on both sides, a pair is one game twice."""

    def choose_move(self, state):
        return state.legal_moves()[0]


@pytest.mark.parametrize("game, options", [("kalah", {}), ("sungka", {}), ("tak", {"size": 4})])
def test_a_player_against_itself_scores_every_pair_even(game, options):
    starts, moves = random_openings(new_game(game, **options), 12, random.Random(3), 2)
    me = FirstMove()
    pairs = play_pairs(me, me, starts, moves)
    assert pairs.pentanomial() == [0, 0, 12, 0, 0]  # the same game twice, seats swapped
    assert pairs.score() == 0.5 and pairs.standard_error() == 0.0
    if game != "tak":
        assert pairs.margin() == 0  # each pair's margins cancel
    else:
        assert pairs.margin() is None  # Tak keeps no scores in its records


def test_pairs_agree_with_the_games_played_seat_by_seat():
    starts, moves = random_openings(new_game("kalah"), 20, random.Random(5), 2)

    def fresh():  # the same players again, their dice as they were
        return make_player("greedy", seed=1), make_player("luck", seed=2)

    pairs = play_pairs(*fresh(), starts, moves, seed=9)
    greedy, luck = fresh()
    first = play_games([greedy, luck], starts, openings=moves, seed=9)
    second = play_games([luck, greedy], starts, openings=moves, seed=9)
    assert pairs.seats() == [Tally().add_records(first, 0), Tally().add_records(second, 1)]
    assert sum(pairs.pentanomial()) == 20 and pairs.openings == [tuple(m) for m in moves]
    report = pairs.to_dict()
    assert report["pairs"] == 20 and report["openings"] == len(set(pairs.openings))
    assert 0.5 < report["score"] <= 1 and report["margin"] > 0  # greedy beats luck
    margins = [r["scores"][0] - r["scores"][1] for r in first]
    assert [m[0] for m in pairs.margins] == margins
