"""Invariants of the Tak rules over random positions (hypothesis)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala.game_state import IllegalMove
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.state import TakState, from_tps, new_tak, state_from_dict


@st.composite
def positions(draw):
    """A position reached by random legal moves from an opening of any size and komi."""
    state = new_tak(draw(st.integers(3, 8)), draw(st.integers(-4, 4)))
    rng = draw(st.randoms(use_true_random=False))
    for _ in range(draw(st.integers(0, 150))):
        moves = state.legal_moves()
        if not moves:
            break
        state = state.play(rng.choice(moves))
    return state


def pieces_conserved(state: TakState) -> bool:
    for player in (0, 1):
        on_board = [p for stack in state.board for p in stack if p.player == player]
        caps = sum(piece.kind == "C" for piece in on_board)
        stones, reserve_caps = state.reserves(player)
        if (stones + len(on_board) - caps, reserve_caps + caps) != PIECES[state.size]:
            return False
        if min(stones, reserve_caps) < 0:
            return False
    return True


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 5), st.integers(-2, 2), st.randoms(use_true_random=False))
def test_random_games_conserve_pieces_and_end(size, komi, rng):
    state = new_tak(size, komi)
    for _ in range(1000):
        assert pieces_conserved(state)
        assert all(p.kind == "F" for stack in state.board for p in stack[:-1])
        moves = state.legal_moves()
        assert (not moves) == state.is_over()  # a game goes on while a move exists
        if not moves:
            break
        state = state.play(rng.choice(moves))
    assert state.is_over(), "a random game did not end within 1000 plies"
    outcome = state.outcome
    assert outcome.winner == state.winner() and outcome.reason in ("road", "flat", "draw")
    assert outcome.flats == state.flat_counts()


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(positions(), st.lists(st.integers(0, 65_471), max_size=40))
def test_play_takes_every_legal_move_and_refuses_the_others(state, tries):
    legal = set(state.legal_moves())
    for move in legal:
        after = state.play(move)
        assert after.ply == state.ply + 1 and pieces_conserved(after)
    for move in tries:
        move %= state.num_actions
        if move not in legal:
            try:
                state.play(move)
            except IllegalMove as error:
                assert str(error)
            else:
                raise AssertionError(f"{state.move_name(move)} was played in {state.to_tps()}")


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(positions())
def test_ptn_names_read_back(state):
    for move in state.legal_moves():
        assert state.parse_move(state.move_name(move)) == move


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(positions())
def test_tps_and_to_dict_round_trip(state):
    assert from_tps(state.to_tps(), state.komi) == state
    again = state_from_dict(json.loads(json.dumps(state.to_dict())))
    assert again == state and hash(again) == hash(state)
    assert again.outcome == state.outcome


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(positions(), st.integers(0, 1))
def test_the_fast_planes_are_the_readable_planes(state, seat):
    import numpy as np

    from mancala.games.tak.fast import to_arrays
    from mancala.games.tak.planes import channels, planes, planes_into

    out = np.full((channels(state.size), state.size, state.size), 7, np.float32)
    planes_into(*to_arrays(state), seat, *PIECES[state.size], out)
    assert np.array_equal(out, planes(state, seat))
