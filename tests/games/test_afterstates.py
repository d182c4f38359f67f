"""The numba afterstates agree with the readable rules, move for move (hypothesis)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from mancala.game_state import GameState
from mancala.games.masks import legal_mask
from mancala.games.sowing.afterstates import afterstates
from mancala.games.sowing.engine import rules_of
from mancala.games.sowing.view import mover_view, mover_views

VARIANTS = [
    ("kalah", {}),
    ("kalah", {"empty_capture": True}),
    ("kalah", {"houses": 3, "seeds": 2}),
    ("sungka", {}),
    ("sungka", {"houses": 4, "seeds": 3}),
]


@st.composite
def games_in_progress(draw):
    """Positions a few random plies into a game (none finished), of every sowing game."""
    variant, options = draw(st.sampled_from(VARIANTS))
    rng = draw(st.randoms(use_true_random=False))
    state, found = GameState.new(variant, **options), []
    for _ in range(draw(st.integers(1, 60))):
        found.append(state)
        after = state.play(rng.choice(state.legal_moves()))
        if after.is_over():
            break
        state = after
    return found


@settings(max_examples=200, deadline=None)
@given(games_in_progress())
def test_each_afterstate_is_the_rules_move_seen_from_the_next_mover(states):
    rel, mask = mover_views(states), legal_mask(states)
    after, gained, same, live = afterstates(rel, mask, rules_of(states[0]))
    h = states[0].houses
    for i, state in enumerate(states):
        assert (live[i] <= mask[i]).all()
        for move in state.legal_moves():
            played = state.play(move)
            assert after[i, move].tolist() == mover_view(played).tolist()
            assert same[i, move] == (played.player == state.player)
            assert live[i, move] == (not played.is_over())
            me = state.player
            diff = [
                s.board[me * (h + 1) + h] - s.board[(1 - me) * (h + 1) + h] for s in (state, played)
            ]
            assert gained[i, move] == diff[1] - diff[0]
