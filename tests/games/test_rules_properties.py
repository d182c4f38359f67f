"""Invariants of the rules over random positions of both variants (hypothesis)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala.game_state import GameState, IllegalMove

VARIANTS = [
    ("kalah", {}),
    ("kalah", {"empty_capture": True}),
    ("kalah", {"houses": 4, "seeds": 3}),
    ("sungka", {}),
    ("sungka", {"houses": 5, "seeds": 4}),
]


@st.composite
def positions(draw):
    """A random legal position: any split of the seeds over the pits, either player."""
    variant, options = draw(st.sampled_from(VARIANTS))
    opening = GameState.new(variant, **options)
    total, pits = sum(opening.board), len(opening.board)
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=pits - 1, max_size=pits - 1)))
    board = [b - a for a, b in zip([0, *cuts], [*cuts, total])]
    return GameState.new(variant, board, draw(st.integers(0, 1)), **options)


def check_move(state: GameState, move: int) -> GameState:
    after = state.play(move)
    assert sum(after.board) == sum(state.board)  # seeds are conserved
    assert all(count >= 0 for count in after.board)
    assert after.player in (0, 1)
    return after


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(positions(), st.randoms(use_true_random=False))
def test_random_play_conserves_seeds_and_ends(state, rng):
    played = 0
    while played < 2000:
        moves = state.legal_moves()
        # legal_moves() is empty exactly when the game is over (Sungka passes are automatic)
        assert (not moves) == state.is_over()
        if not moves:
            break
        assert all(state.side(state.player)[m] > 0 for m in moves)
        state = check_move(state, rng.choice(moves))
        played += 1
    assert state.is_over(), "a game did not end within 2000 moves"
    assert sum(state.scores()) == sum(state.board)
    if state.variant == "kalah" and played:  # the end-of-game sweep empties every house
        assert not any(state.side(0)) and not any(state.side(1))


@settings(max_examples=300, deadline=None)
@given(positions())
def test_to_dict_round_trips(state):
    assert GameState.from_dict(state.to_dict()) == state
    assert hash(GameState.from_dict(state.to_dict())) == hash(state)


@settings(max_examples=200, deadline=None)
@given(positions(), st.integers(-3, 10))
def test_illegal_moves_raise_and_say_why(state, move):
    if move in state.legal_moves():
        check_move(state, move)
    else:
        with pytest.raises(IllegalMove, match=r"\w"):
            state.play(move)


@pytest.mark.parametrize("move", ["a", 1.0, None, True])
def test_a_move_of_the_wrong_type_is_illegal(move):
    with pytest.raises(IllegalMove, match="house number"):
        GameState.new().play(move)


def test_a_finished_game_refuses_moves():
    end = GameState.new(board=(0,) * 6 + (24,) + (1,) * 6 + (18,))
    assert end.is_over() and end.legal_moves() == []
    with pytest.raises(IllegalMove, match="game is over"):
        end.play(0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"board": [4] * 13}, "14"),
        ({"board": [-1] + [4] * 12 + [5]}, "non-negative"),
        ({"board": [4] * 14}, "48"),
        ({"board": "4444"}, "list"),
        ({"player": 2}, "player"),
        ({"houses": 0}, "houses"),
        ({"colour": "red"}, "unknown option"),
    ],
)
def test_bad_positions_are_refused_with_a_reason(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GameState.new(**kwargs)
