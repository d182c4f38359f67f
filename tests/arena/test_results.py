"""The one tally of results (mancala/arena/results.py), on games really played."""

from __future__ import annotations

import pytest

from mancala.ai.registry import make_player
from mancala.arena.match import play_games
from mancala.arena.results import OUTCOMES, Tally, outcome, points
from mancala.game_state import GameState
from mancala.learn.curve import win_rate


def test_a_result_depends_on_the_winner_and_the_seat():
    assert [outcome(w, seat) for w in (0, 1, None) for seat in (0, 1)] == [
        "wins", "losses", "losses", "wins", "draws", "draws"
    ]  # fmt: skip
    assert [points(w, 0) for w in (0, None, 1)] == [1.0, 0.5, 0.0]


def test_the_tally_of_real_games_counts_each_seat_from_its_side():
    start = GameState.new(houses=3, seeds=2)  # small: draws happen
    players = [make_player("luck", seed=1), make_player("luck", seed=2)]
    records = play_games(players, [start] * 200, seed=5)
    first, second = Tally().add_records(records, 0), Tally().add_records(records, 1)
    winners = [r["winner"] for r in records]
    assert (first.wins, first.draws, first.losses) == tuple(winners.count(w) for w in (0, None, 1))
    assert (second.wins, second.draws, second.losses) == (first.losses, first.draws, first.wins)
    assert first.games == second.games == 200 and first.draws > 0
    assert first.win_percent() + first.percent("draws") + first.percent("losses") == 100.0
    assert Tally.from_dict(first.to_dict()) == first and first + second == Tally(
        first.wins + first.losses, 2 * first.draws, first.wins + first.losses
    )


def test_an_empty_tally_has_no_share_and_a_bad_kind_is_refused():
    assert Tally().games == 0 and Tally().win_percent() == 0.0
    assert list(Tally().to_dict()) == [*OUTCOMES, "games"]
    with pytest.raises(AttributeError):
        Tally(wins=1).percent("victories")


def test_win_rate_counts_both_seats():
    strong, weak = make_player("greedy", seed=1), make_player("luck", seed=1)
    start = GameState.new(houses=4, seeds=3)
    rate = win_rate(strong, weak, games=10, seed=2, start=start)
    assert 50.0 < rate <= 100.0 and (rate * 20 / 100).is_integer()
