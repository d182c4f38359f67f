"""The numba alpha-beta of Tak (mancala/games/tak/search.py): its evaluator equals
`evaluate.value` (and the networks' feature planes its roads in one, squares held and
groups), its move values equal the generic alpha-beta's, minimax plays Tak with it, and
it keeps to its deadline."""

from __future__ import annotations

import random
from functools import partial

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mancala.ai import make_player
from mancala.ai.limits import Limits
from mancala.ai.search_generic import AlphaBeta
from mancala.games.tak import evaluate, from_tps, new_tak, search
from mancala.games.tak.actions import decode
from mancala.games.tak.evaluate import fitted_weights
from mancala.games.tak.fast import roads_in_one, to_arrays, tops
from mancala.games.tak.features import feature_planes
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.planes import planes
from mancala.games.tak.state import TakState

BLOCK_IT = "2,2,2,x2/x5/x5/x5/1,1,1,1,x 2 5"  # black must play e1


def random_positions(seed: int, count: int) -> list:
    """`count` positions of 4x4 and 5x5 games after 0 to 70 random plies, not over."""
    rng, positions = random.Random(seed), []
    while len(positions) < count:
        state = new_tak(rng.choice([4, 5]))
        for _ in range(rng.randrange(70)):
            if state.is_over():
                break
            state = state.play(rng.choice(state.legal_moves()))
        if not state.is_over():
            positions.append(state)
    return positions


def test_the_numba_evaluator_equals_the_readable_one():
    for state in random_positions(1, 60):
        assert search.value(*to_arrays(state), evaluate.HAND_WEIGHTS) == evaluate.value(state), (
            state.to_tps()
        )


# stacks taller than the planes show (at least three deep), what they hide the colour of
# the deepest they show on every board: all but the top two pieces of one colour
TALL = ["1111121", "2222212", "1111112S", "2222221C"]
CELLS = ["x", "x", "1", "2", "1", "2", "1", "2", "1S", "2S", "1C", "2C", "12", "21", "121C", "212S"]


def drawn_board(size: int, data, tall: bool = False) -> TakState:
    """A board of `size` drawn square by square from CELLS, its game not over; with `tall`,
    one square's stack drawn from TALL."""
    cells = data.draw(st.lists(st.sampled_from(CELLS), min_size=size * size, max_size=size * size))
    if tall:
        cells[data.draw(st.integers(0, size * size - 1))] = data.draw(st.sampled_from(TALL))
    cells = _within_capstones(cells, PIECES[size][1])
    rows = [",".join(cells[r * size : (r + 1) * size]) for r in range(size)]
    try:
        state = from_tps("/".join(rows) + f" {data.draw(st.sampled_from('12'))} 9")
    except ValueError:  # more pieces of a kind than the sets hold
        assume(False)
    assume(state.outcome is None)
    return state


def _within_capstones(cells: list[str], caps: int) -> list[str]:
    """`cells` with each colour's capstones after its first `caps` made flats: a board
    drawn square by square holds more capstones than a set more often than not."""
    kept, seen = [], {"1": 0, "2": 0}
    for cell in cells:
        if cell.endswith("C"):
            colour = cell[-2]
            seen[colour] += 1
            cell = cell if seen[colour] <= caps else cell[:-1]
        kept.append(cell)
    return kept


def bits_of(plane: np.ndarray) -> set[int]:
    """The squares set in a feature plane (S, S)."""
    return {int(square) for square in np.flatnonzero(plane)}


@settings(max_examples=100, deadline=None)
@given(size=st.integers(3, 8), data=st.data())
def test_the_feature_planes_are_the_readable_roads_in_one_squares_held_and_groups(size, data):
    """From either seat's planes, the feature planes are `evaluate`'s roads in one,
    squares held and groups, mine first."""
    state = drawn_board(size, data)
    held = evaluate.held(state)
    for seat in (0, 1):
        features = feature_planes(planes(state, seat)[None])[0]
        for who, player in enumerate((seat, 1 - seat)):
            placed, moved = evaluate.road_in_one(state, player)
            got = bits_of(features[who]), bits_of(features[2 + who]), bits_of(features[4 + who])
            assert got == (placed, moved, held[player]), (state.to_tps(), seat, player)
            reach = np.zeros(size * size, np.float32)
            for group in evaluate.groups(state, state.road_squares(player)):
                rows, columns = {sq // size for sq in group}, {sq % size for sq in group}
                reach[list(group)] = max(len(rows), len(columns)) / size
            assert (features[6 + who].ravel() == reach).all(), (state.to_tps(), seat, player)


def road_move_starts(state: TakState, player: int) -> set[int]:
    """The squares where the moves of `player` (as if its turn) that finish its road start,
    by the readable rules."""
    turned = TakState(state.size, state.komi, state.board, state.ply + (state.player != player))
    starts = set()
    for move in turned.legal_moves():
        outcome = turned.play(move).outcome
        if outcome is not None and outcome.reason == "road" and outcome.winner == player:
            starts.add(decode(state.size, move).square)
    return starts


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(size=st.integers(3, 8), tall=st.booleans(), data=st.data())
def test_the_road_move_planes_are_the_readable_rules(size, tall, data):
    """From either seat's planes, planes 8 and 9 mark where the moves that finish a road
    start (mine, theirs), every move of the readable rules played; stacks taller than the
    planes show among them."""
    state = drawn_board(size, data, tall)
    for seat in (0, 1):
        features = feature_planes(planes(state, seat)[None])[0]
        for who, player in enumerate((seat, 1 - seat)):
            got = bits_of(features[8 + who])
            assert got == road_move_starts(state, player), (state.to_tps(), seat, player)


def threat_starts(state: TakState, player: int) -> dict[int, float]:
    """Where the moves of `player` (as if its turn) that finish no road but make squares
    that would (`evaluate.road_in_one`, placed or moved, beside those there were) start:
    1/2 for one such square, 1 for two or more; by the readable rules."""
    turned = TakState(state.size, state.komi, state.board, state.ply + (state.player != player))
    finishing = set().union(*evaluate.road_in_one(turned, player))
    starts: dict[int, float] = {}
    for move in turned.legal_moves():
        after = turned.play(move)
        if after.outcome is not None and after.outcome.reason == "road":
            if after.outcome.winner == player:
                continue
        new = set().union(*evaluate.road_in_one(after, player)) - finishing
        square = decode(state.size, move).square
        if new:
            starts[square] = max(starts.get(square, 0.0), 1.0 if len(new) > 1 else 0.5)
    return starts


@pytest.mark.slow
@settings(max_examples=30, deadline=None)  # the readable side plays every move
@given(size=st.integers(3, 8), tall=st.booleans(), data=st.data())
def test_the_threat_planes_are_the_readable_roads_in_one_a_move_ahead(size, tall, data):
    """From either seat's planes, planes 10 and 11 (mine, theirs) are `threat_starts`."""
    state = drawn_board(size, data, tall)
    for seat in (0, 1):
        features = feature_planes(planes(state, seat)[None])[0]
        for who, player in enumerate((seat, 1 - seat)):
            plane = features[10 + who].ravel()
            got = {int(square): float(plane[square]) for square in np.flatnonzero(plane)}
            assert got == threat_starts(state, player), (state.to_tps(), seat, player)


@settings(max_examples=100, deadline=None)
@given(size=st.integers(3, 8), data=st.data())
def test_the_numba_roads_in_one_and_value_are_the_readable_ones(size, data):
    """Boards of every size with flats, walls, capstones and stacks, many a piece short of
    a road: the squares that finish one and the value are those of `evaluate`."""
    state = drawn_board(size, data)
    meta, colours = to_arrays(state)
    (white, black), (white_caps, black_caps), walls = tops(meta, colours)
    bits = np.uint64  # numba hands uint64 back as ints
    on_top = ((bits(white), bits(black)), (bits(white_caps), bits(black_caps)), bits(walls))
    for player in (0, 1):
        placed, moved = roads_in_one(on_top, player, size)
        squares = tuple(
            {sq for sq in range(size * size) if found >> np.uint64(sq) & np.uint64(1)}
            for found in (placed, moved)
        )
        assert squares == evaluate.road_in_one(state, player), state.to_tps()
    assert search.value(meta, colours, evaluate.HAND_WEIGHTS) == evaluate.value(state), (
        state.to_tps()
    )


@pytest.mark.slow
@pytest.mark.parametrize("depth, count", [(1, 30), (2, 30), (3, 4)])
def test_move_values_equal_the_generic_alpha_beta(depth, count):
    for state in random_positions(depth, count):
        fast, reached, nodes = search.move_values(state, depth=depth, exact=True)
        generic = AlphaBeta(depth=depth).evaluate(state)
        assert fast == generic["moves"], state.to_tps()
        assert reached == depth and nodes > 0


def test_minimax_plays_tak_with_the_numba_search():
    """Its move values are the generic alpha-beta's over the readable evaluation, by the
    fitted weights of the board (the shipped ones on 5x5) or the hand-set ones."""
    state = next(s for s in random_positions(3, 20) if s.size == 5)
    for spec, weights in (("minimax:2", fitted_weights(5)), ("minimax:2,evaluation=hand", None)):
        got = make_player(spec, seed=1).evaluate(state)
        readable = partial(evaluate.value, weights=weights) if weights is not None else None
        assert got["moves"] == AlphaBeta(evaluate=readable, depth=2).evaluate(state)["moves"]
        assert got["depth"] == 2 and got["nodes"] > len(got["moves"])
    assert not np.array_equal(fitted_weights(5), evaluate.HAND_WEIGHTS)  # they ship
    block = from_tps(BLOCK_IT)
    assert block.move_name(make_player("minimax:2", seed=1).choose_move(block)) in ("e1", "Ce1")


def test_the_search_stops_at_its_deadline():
    state = random_positions(4, 1)[0]
    for player in (make_player("minimax:t=0.05"), make_player("minimax:100", limits=Limits(0.05))):
        player.choose_move(state)
        assert 1 <= player.reached < 100  # the deepest depth it finished, not the one asked


def test_the_kernels_have_one_signature():
    # A recursive numba function loaded from the cache segfaults when it was compiled for
    # two signatures (numba issues #6061, #6713): every call passes the same types.
    search.move_values(new_tak(4), depth=3, exact=True)
    make_player("minimax:2").choose_move(new_tak(3))
    assert len(search._root.signatures) == 1 and len(search._search.signatures) <= 1
