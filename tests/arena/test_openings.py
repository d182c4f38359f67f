"""Openings and replays (arena/openings.py, games/replay.py) through the game protocol
alone: Kalah, Sungka and Tak alike."""

from __future__ import annotations

import random

import pytest

from mancala.arena.openings import draw_openings, random_opening, random_openings
from mancala.games import IllegalMove, new_game
from mancala.games.replay import positions, replayed
from mancala.learn.gate import gate_openings

GAMES = [("kalah", {}), ("kalah", {"houses": 4, "seeds": 3}), ("sungka", {}), ("tak", {"size": 4})]


@pytest.mark.parametrize("game, options", GAMES)
def test_a_random_opening_is_legal_seeded_and_replays(game, options):
    start = new_game(game, **options)
    for seed in range(20):
        state, moves = random_opening(start, 6, random.Random(seed))
        assert len(moves) == 6 and (state, moves) == random_opening(start, 6, random.Random(seed))
        assert replayed(start, moves) == state
        line = positions(start, moves)
        assert line[0] == start and line[-1] == state and len(line) == 7
        assert all(move in before.legal_moves() for before, move in zip(line, moves))


def test_an_opening_stops_when_the_game_ends():
    start = new_game("kalah", houses=1, seeds=1)  # over after the first move
    state, moves = random_opening(start, 5, random.Random(0))
    assert state.is_over() and moves == [0]


@pytest.mark.parametrize("game, options", GAMES)
def test_many_openings_draw_as_the_practice_and_the_gate_always_did(game, options):
    start = new_game(game, **options)

    def old_practice(count, rng, most):  # learn.practice.openings, as it was
        drawn = [random_opening(start, rng.randint(0, most), rng) for _ in range(count)]
        return [s for s, _ in drawn], [m for _, m in drawn]

    assert random_openings(start, 12, random.Random(4), 8, vary=True) == old_practice(
        12, random.Random(4), 8
    )
    states, moves = random_openings(start, 12, random.Random(4), 8, vary=True)
    assert {len(m) for m in moves} <= set(range(9)) and len({len(m) for m in moves}) > 1
    starts, drawn = gate_openings(start, 5, 3, 9)  # distinct, as the tournament's
    assert drawn == draw_openings(start, 5, 3, 9) and len({tuple(m) for m in drawn}) == 5
    assert starts == [replayed(start, m) for m in drawn]
    assert all(replayed(start, m) == s for s, m in zip(states, moves))


@pytest.mark.parametrize("game, options", GAMES)
def test_tournament_openings_are_distinct_and_replay(game, options):
    start = new_game(game, **options)
    openings = draw_openings(start, 10, 3, seed=2)
    assert openings == draw_openings(start, 10, 3, seed=2)
    assert len({tuple(m) for m in openings}) == 10
    assert all(len(replayed(start, m).legal_moves()) > 0 for m in openings)


def test_a_replay_refuses_an_illegal_move_and_says_why():
    start = new_game("tak", size=3)
    with pytest.raises(IllegalMove, match="not empty"):
        positions(start, [0, 0])
    with pytest.raises(IllegalMove, match="out of range"):
        replayed(new_game("sungka"), [9])
