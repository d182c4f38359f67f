"""One mover's view and one legal-move mask: they equal what each of their users computed
on its own before (written out here as the reference), on random positions of every
sowing game, and the mask equals `legal_moves` in every game."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mancala.ai.dqn import encode
from mancala.game_state import GameState
from mancala.games import new_game
from mancala.games.masks import legal_mask
from mancala.games.sowing.solver.book import book_key
from mancala.games.sowing.solver.rules import relative_board
from mancala.games.sowing.view import houses_of, mover_view, mover_views, seat_view
from mancala.learn.envs import action_mask, observe

SOWING = [("kalah", 6, 4), ("kalah", 3, 2), ("sungka", 7, 7), ("sungka", 4, 3)]


def random_positions(start, count: int, seed: int) -> list:
    """Positions after 0..40 random plies from `start` (finished games included)."""
    rng, found = random.Random(seed), []
    for _ in range(count):
        state = start
        for _ in range(rng.randrange(41)):
            if state.is_over():
                break
            state = state.play(rng.choice(state.legal_moves()))
        found.append(state)
    return found


def old_seat_board(state: GameState, seat: int) -> list[int]:
    """The environments' observation as it was: the board rotated by the seat's offset."""
    lo = seat * (state.houses + 1)
    return list(state.board[lo:] + state.board[:lo])


def old_relative_houses(state: GameState) -> list[int]:
    """The solver's and the DQN's view as they were: own houses, then the opponent's."""
    return list(state.side(state.player) + state.side(1 - state.player))


@pytest.mark.parametrize("variant, houses, seeds", SOWING)
def test_the_mover_view_equals_every_old_view(variant, houses, seeds):
    states = random_positions(GameState.new(variant, houses=houses, seeds=seeds), 300, seed=7)
    views = mover_views(states)
    assert views.dtype == np.int64 and views.shape == (len(states), 2 * houses + 2)
    for state, view in zip(states, views):
        assert view.tolist() == mover_view(state).tolist()
        assert view.tolist() == old_seat_board(state, state.player)
        for seat in (0, 1):
            assert seat_view(state, seat).tolist() == old_seat_board(state, seat)
            assert observe(state, seat).tolist() == old_seat_board(state, seat)
        assert houses_of(view).tolist() == old_relative_houses(state)
        assert relative_board(state).tolist() == old_relative_houses(state)
        assert book_key(state) == ",".join(map(str, old_relative_houses(state)))
    expected = np.array([old_relative_houses(s) for s in states], np.float32) / seeds
    assert np.array_equal(encode(states), expected)
    assert np.array_equal(houses_of(views), [old_relative_houses(s) for s in states])


@pytest.mark.parametrize(
    "game, options", [("kalah", {}), ("sungka", {"houses": 4}), ("tak", {"size": 4})]
)
def test_the_legal_mask_marks_exactly_the_legal_moves(game, options):
    states = random_positions(new_game(game, **options), 60, seed=3)
    mask = legal_mask(states)
    assert mask.dtype == bool and mask.shape == (len(states), states[0].num_actions)
    for state, row in zip(states, mask):
        assert np.flatnonzero(row).tolist() == sorted(state.legal_moves())
        for seat in (0, 1):
            expected = row if seat == state.player else np.zeros_like(row)
            assert action_mask(state, seat).tolist() == expected.astype(np.int8).tolist()
    assert any(state.is_over() for state in states) or game == "tak"
