"""Tak: the readable rules against published perft counts and the rules text, the
notations, the drawing, and the numba engine against the readable rules."""

import json
import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mancala.game_state import IllegalMove
from mancala.games.tak import fast
from mancala.games.tak.actions import Place, Shift, decode, encode, num_actions
from mancala.games.tak.perft import OPENINGS, POSITIONS, perft
from mancala.games.tak.perft import main as perft_command
from mancala.games.tak.state import TakState, from_tps, new_tak, state_from_dict


def played(moves: list[str], size: int = 5, komi: int = 0) -> TakState:
    state = new_tak(size, komi)
    for text in moves:
        state = state.play(state.parse_move(text))
    return state


def names(state: TakState) -> set[str]:
    return {state.move_name(move) for move in state.legal_moves()}


# ----- perft: the published counts ------------------------------------------------------


@pytest.mark.parametrize("size", sorted(OPENINGS))
def test_readable_perft_of_the_openings(size):
    assert [perft(new_tak(size), depth) for depth in range(4)] == OPENINGS[size][:4]


@pytest.mark.parametrize("size", sorted(OPENINGS))
def test_fast_perft_of_the_openings(size):
    assert [fast.perft(new_tak(size), depth) for depth in range(5)] == OPENINGS[size]


@pytest.mark.parametrize("tps", sorted(POSITIONS))
def test_perft_of_mid_game_positions(tps):
    state = from_tps(tps)
    assert [perft(state, depth) for depth in range(3)] == POSITIONS[tps][:3]
    assert [fast.perft(state, depth) for depth in range(4)] == POSITIONS[tps]


# The PTN games of tiltak's tests (src/tests/move_gen_5s_tests.rs) reach the TPS above.
TILTAK_GAMES = [
    ["d3", "c3", "c4", "1d3<", "1c4-", "Sc4"],
    ["c2", "c3", "d3", "b3", "c4", "1c2+", "1d3<", "1b3>", "1c4-", "Cc2", "a1", "1c2+", "a2"],
    "c4 c2 d2 c3 b2 d3 1d2+ b3 d2 b4 1c2+ 1b3> 2d3< 1c4- d4 5c3<23 c2 c4 1d4< d3 1d2+ 1c3+ "
    "Cc3 2c4> 1c3< d2 c3 1d2+ 1c3+ 1b4> 2b3>11 3c4-12 d2 c4 b4 c5 1b3> 1c4< 3c3- e5 e2".split(),
]


@pytest.mark.parametrize("moves", TILTAK_GAMES)
def test_ptn_games_reach_the_published_positions(moves):
    assert played(moves).to_tps() in POSITIONS


def test_a_stack_moves_at_most_size_pieces():
    # tiltak's respect_carry_limit_test: black's capstone tops five pieces on c3
    state = played("c2 c3 d3 b3 c4 1c2+ 1d3< 1b3> 1c4+ Cc2 a1 1c2+ a2".split())
    assert len(state.board[12]) == 5 and "5c3>" in names(state)
    with pytest.raises(IllegalMove, match="carries 1..5 pieces"):
        state.parse_move("6c3>")
    tall = from_tps("x5/x5/x2,12121212,x2/x5/x5 2 5")  # eight pieces, black on top
    carries = {int(name[0]) if name[0].isdigit() else 1 for name in names(tall) if "c3" in name}
    assert carries == {1, 2, 3, 4, 5}


# ----- the rules, one by one ----------------------------------------------------------


def test_the_first_two_plies_place_a_flat_of_the_opponent():
    state = new_tak(5)
    assert names(state) == {f"{f}{r}" for f in "abcde" for r in range(1, 6)}
    with pytest.raises(IllegalMove, match="first ply places a flat"):
        state.play(state.parse_move("Sa1"))
    state = state.play(state.parse_move("a1"))
    assert state.board[0][0].player == 1 and state.reserves(1) == (20, 1)
    with pytest.raises(IllegalMove, match="no stack moves in the first two plies"):
        state.play(state.parse_move("a1>"))
    state = state.play(state.parse_move("b1"))
    assert state.board[1][0].player == 0
    assert {"a2", "Sa2", "Ca2", "b1>", "b1+", "b1<"} <= names(state)
    assert "a1>" not in names(state)  # a1 is black's


def test_nothing_moves_onto_a_wall_or_a_capstone_except_a_lone_capstone_on_a_wall():
    # a2 white capstone, b2 black wall, c2 black capstone, b1 and c1 white flats
    state = from_tps("x5/x5/x5/1C,2S,2C,x2/x,1,1,x2 1 5")
    with pytest.raises(IllegalMove, match="nothing moves onto the wall on b2"):
        state.play(state.parse_move("b1+"))
    with pytest.raises(IllegalMove, match="nothing moves onto the capstone on c2"):
        state.play(state.parse_move("c1+"))
    crushed = state.play(state.parse_move("a2>"))
    assert crushed.to_tps() == "x5/x5/x5/x,21C,2C,x2/x,1,1,x2 2 5"


def test_a_capstone_flattens_a_wall_only_alone_and_last():
    state = from_tps("x5/x5/x2,1C,2S,x/x5/x5 1 5")  # c3 white capstone, d3 black wall
    assert "c3>" in names(state)
    under = from_tps("x5/x5/x2,11C,2S,x/x5/x5 1 5")  # a flat under the capstone
    assert "c3>" in names(under)
    assert {"2c3>", "2c3>11"} & names(under) == set()  # the capstone would not be alone
    two_squares = from_tps("x5/x5/x,11C,x,2S,x/x5/x5 1 5")
    assert {"2b3>", "2b3>11"} <= names(two_squares)
    after = two_squares.play(two_squares.parse_move("2b3>11"))
    assert after.to_tps() == "x5/x5/x2,1,21C,x/x5/x5 2 5"
    walls = from_tps("x5/x5/x2,1S,2S,x/x5/x5 1 5")
    assert "c3>" not in names(walls)  # a wall does not flatten a wall


def test_roads_win_and_walls_do_not_make_roads():
    state = from_tps("x5/x5/1,1,1,1,x/x5/x5 1 5")
    assert state.play(state.parse_move("e3")).outcome.reason == "road"
    assert state.play(state.parse_move("e3")).winner() == 0
    assert not state.play(state.parse_move("Se3")).is_over()
    column = from_tps("x,2,x3/x,2,x3/x,2,x3/x,2,x3/x5 2 5")
    assert column.play(column.parse_move("b1")).winner() == 1


def test_a_ply_making_both_roads_wins_for_its_mover():
    # white's a3 piece steps onto b3: white's b file and black's a file both join
    state = from_tps("2,1,x3/2,1,x3/21,x4/2,1,x3/2,1,x3 1 10")
    assert not state.is_over()
    after = state.play(state.parse_move("a3>"))
    assert after.has_road(0) and after.has_road(1)
    assert after.outcome.winner == 0 and after.outcome.reason == "road"


def test_a_ply_making_only_the_opponents_road_loses():
    state = from_tps("2,x4/2,x4/21,x4/2,x4/2,x4 1 10")
    after = state.play(state.parse_move("a3>"))
    assert after.winner() == 1 and after.outcome.reason == "road"


def test_a_full_board_ends_on_flats_with_komi():
    position = "2,1,2/1,2,1/2,1,x 1 5"  # 3x3: white 4 flats, black 4; c1 left
    state = from_tps(position)
    assert state.play(state.parse_move("c1")).outcome == (0, "flat", (5, 4))
    assert state.play(state.parse_move("Sc1")).outcome == (None, "draw", (4, 4))
    with_komi = from_tps(position, komi=1)
    assert with_komi.play(with_komi.parse_move("Sc1")).outcome == (1, "flat", (4, 4))
    assert with_komi.play(with_komi.parse_move("c1")).winner() == 0


def test_placing_the_last_piece_ends_the_game():
    # 3x3 has 10 stones each: white has placed 9 (stacked on a1), black 10 minus 1
    state = from_tps("x3/x3/111111111,2,x 1 12")
    assert state.reserves(0) == (1, 0) and not state.is_over()
    after = state.play(state.parse_move("c3"))
    assert after.outcome == (0, "flat", (2, 1))
    assert after.legal_moves() == []
    with pytest.raises(IllegalMove, match="the game is over"):
        after.play(0)


def test_a_player_without_stones_may_still_place_the_capstone():
    state = from_tps("x5/x5/x5/x5/111111111111111111111,2,x3 1 12")
    assert state.reserves(0) == (0, 1) and not state.is_over()
    placements = {name for name in names(state) if not set(name) & set("+-<>")}
    assert placements == {f"C{f}{r}" for f in "abcde" for r in range(1, 6)} - {"Ca1", "Cb1"}


def test_illegal_moves_say_why():
    state = played(["a1", "e5"])
    cases = {
        "a1": "a1 is not empty",
        "a1+": "a1 is controlled by black",
        "c3+": "c3 is empty",
        "2e5-": "e5 holds only 1 piece",
        "e5+": "runs off the board",
    }
    for text, reason in cases.items():
        with pytest.raises(IllegalMove, match=reason):
            state.play(state.parse_move(text))
    for bad in (-1, num_actions(5), "a1", 2.0, True):
        with pytest.raises(IllegalMove):
            state.play(bad)


# ----- notation -----------------------------------------------------------------------


def test_ptn_short_and_long_forms():
    state = new_tak(5)
    same = [("a1", "Fa1"), ("d3<", "1d3<"), ("3c3>", "3c3>3"), ("3c3>111", "3c3>111'")]
    for short, long in same:
        assert state.parse_move(short) == state.parse_move(long)
        assert state.move_name(state.parse_move(long)) == short
    assert decode(5, state.parse_move("Sa1")) == Place(0, "S")
    assert decode(5, state.parse_move("Cb2")) == Place(6, "C")
    assert decode(5, state.parse_move("3c3>12")) == Shift(12, 2, (1, 2))
    assert decode(5, state.parse_move("2c3-*")) == Shift(12, 1, (2,))
    for bad in ("", "f1", "a6", "3c3>22", "0c3>", "c3>0", "Xa1", "a1+-", 12):
        with pytest.raises(IllegalMove):
            state.parse_move(bad)


@pytest.mark.parametrize("size", range(3, 9))
def test_every_action_id_has_a_ptn_name_that_reads_back(size):
    state = new_tak(size)
    for action in range(num_actions(size)):
        assert state.parse_move(state.move_name(action)) == action
        assert encode(size, decode(size, action)) == action


def test_tps_reads_the_usual_wrappings_and_refuses_bad_text():
    tps = "x5/x5/x2,121212C,x2/1,x4/1,x4 2 7"
    for text in (tps, f"[TPS {tps}]", f'[TPS "{tps}"]'):
        assert from_tps(text).to_tps() == tps
    bad = [
        "x5/x5/x5/x5 1 1",  # four rows of five
        "x/x/x 1 1",  # three rows of one
        "x5/x5/x5/x5/x5 3 1",
        "x5/x5/x5/x5/x5 1 0",
        "x5/x5/x5/x5/x5 1",
        "x5/x5/x5/x5/x4,3 1 1",
        "x5/x5/x5/x5/x4,1S1 1 1",
        "x5/x5/x5/x5/x4,1CC 1 1",
        "x5/x5/x5/x5/x3,1C,1C 1 1",  # 5x5 has one capstone each
        "x3/x3/x,1C,x 1 2",  # 3x3 has none
    ]
    for text in bad:
        with pytest.raises(ValueError):
            from_tps(text)
    assert from_tps("x5/x5/x5/x5/x3,1C,2C 1 1").reserves(0) == (21, 0)


def test_to_dict_is_json_and_round_trips():
    state = played(TILTAK_GAMES[1], komi=4)
    data = json.loads(json.dumps(state.to_dict()))
    assert data == {"game": "tak", "options": {"size": 5, "komi": 4}, "tps": state.to_tps()}
    again = state_from_dict(data)
    assert again == state and hash(again) == hash(state) and again.komi == 4
    for bad in ({}, {**data, "game": "kalah"}, {**data, "options": {"size": 6, "komi": 0}}):
        with pytest.raises(ValueError):
            state_from_dict(bad)


def test_options_and_bad_sizes():
    assert new_tak(6, 4).options == {"size": 6, "komi": 4}
    assert new_tak().game == "tak" and new_tak().player == 0
    for size in (2, 9, "5", True):
        with pytest.raises(ValueError, match="size 3..8"):
            new_tak(size)
    with pytest.raises(ValueError, match="komi"):
        new_tak(5, 1.5)


def test_the_drawing_shows_stacks_turn_and_reserves():
    drawing = str(played(TILTAK_GAMES[1]))
    assert "wbwbwBC" in drawing  # c3: bottom to top, the capstone on top
    assert drawing.splitlines()[-3].split() == list("abcde")
    assert "black to move (move 7); flats on top: white 2, black 0" in drawing
    assert "white 16 stones and 1 capstone, black 19 stones and 0 capstones" in drawing
    won = from_tps("x5/x5/1,1,1,1,x/x5/x5 1 5")
    assert "game over: white wins by road" in str(won.play(won.parse_move("e3")))


# ----- the fast engine agrees with the readable rules -----------------------------------


def check_same(state: TakState, meta: np.ndarray, colours: np.ndarray) -> None:
    expected_meta, expected_colours = fast.to_arrays(state)
    assert np.array_equal(meta, expected_meta), state.to_tps()
    for square, height in enumerate(meta[fast.HEIGHTS : fast.HEIGHTS + state.size**2]):
        assert np.array_equal(colours[square, :height], expected_colours[square, :height])
    code = fast.result(meta, colours)
    assert fast.outcome_of(code, meta, colours) == state.outcome, state.to_tps()


@pytest.mark.parametrize(
    "size,games",
    [
        (3, 60),
        (4, 30),
        pytest.param(5, 20, marks=pytest.mark.slow),  # the bigger boards: seconds
        pytest.param(6, 6, marks=pytest.mark.slow),
        pytest.param(7, 3, marks=pytest.mark.slow),
        pytest.param(8, 2, marks=pytest.mark.slow),
    ],
)
def test_fast_engine_plays_random_games_as_the_rules_do(size, games):
    rng = random.Random(size)
    buffer = np.empty(num_actions(size), np.int64)
    for _ in range(games):
        state = new_tak(size, komi=rng.choice([0, 0, 1, 4]))
        meta, colours = fast.to_arrays(state)
        while True:
            check_same(state, meta, colours)  # the same position, over or not alike
            if state.is_over():
                break
            moves = state.legal_moves()
            count = fast.legal_moves(meta, colours, buffer)
            assert buffer[:count].tolist() == moves, state.to_tps()
            move = rng.choice(moves)
            state = state.play(move)
            fast.play(meta, colours, move)


def test_fast_random_games_end_as_the_rules_say():
    for seed in range(20):
        state = new_tak(4)
        meta, colours = fast.to_arrays(state)
        code, actions = fast.random_game(meta, colours, 2000, seed)
        for action in actions:
            state = state.play(int(action))
        assert code >= 0 and state.outcome == fast.outcome_of(code, meta, colours)


def test_the_perft_command_prints_counts_and_refuses_bad_input(capsys):
    assert perft_command(["--depth", "2", "--engine", "both"]) == 0
    out = capsys.readouterr().out
    assert "depth 2  fast 600 (" in out and "readable 600 (" in out and "published 600" in out
    assert perft_command(["--tps", "x5/x5 1 1"]) == 2
    assert "perft: TPS: a Tak board has 3..8 rows, not 2" in capsys.readouterr().err


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(size=st.integers(3, 8), data=st.data())
def test_fast_roads_are_the_rules_roads(size, data):
    """Boards of flats, walls and capstones of both players, many of them with roads:
    the fast engine's road bits find a road exactly where the rules do."""
    cells = data.draw(
        st.lists(
            st.sampled_from(["x", "1", "2", "1", "2", "1", "2", "1S", "2S", "1C", "2C"]),
            min_size=size * size,
            max_size=size * size,
        )
    )
    rows = [",".join(cells[r * size : (r + 1) * size]) for r in range(size)]
    try:
        state = from_tps("/".join(rows) + " 1 9")
    except ValueError:  # more pieces of a kind than the sets hold
        assume(False)
    meta, colours = fast.to_arrays(state)
    for player in (0, 1):
        assert fast.has_road(meta, colours, player) == state.has_road(player), state.to_tps()


@pytest.mark.parametrize("size", [3, 4, 5, 6, 8])
def test_is_legal_answers_as_the_legal_moves_do(size):
    """The legal actions, 400 others and a few outside the range, along random games."""
    rng = random.Random(size)
    buffer = np.empty(num_actions(size), np.int64)
    for _ in range(3):
        state = new_tak(size)
        meta, colours = fast.to_arrays(state)
        while fast.result(meta, colours) < 0:
            legal = set(buffer[: fast.legal_moves(meta, colours, buffer)].tolist())
            others = rng.sample(range(num_actions(size)), min(400, num_actions(size)))
            for action in [-2, -1, num_actions(size), *legal, *others]:
                assert fast.is_legal(meta, colours, action) == (action in legal), (
                    state.to_tps(),
                    action,
                )
            move = rng.choice(sorted(legal))
            state = state.play(move)
            fast.play(meta, colours, move)


@pytest.mark.parametrize(
    "size,games",
    [
        (3, 4),
        (4, 4),
        pytest.param(5, 3, marks=pytest.mark.slow),  # the bigger boards: seconds
        pytest.param(6, 2, marks=pytest.mark.slow),
        pytest.param(8, 1, marks=pytest.mark.slow),
    ],
)
def test_unplay_takes_back_each_move_exactly(size, games):
    """Legal moves (40 at most a position) along random games, played and taken back in
    place."""
    rng = random.Random(size)
    buffer = np.empty(num_actions(size), np.int64)
    for _ in range(games):
        meta, colours = fast.to_arrays(new_tak(size))
        while fast.result(meta, colours) < 0:
            before_meta, before_colours = meta.copy(), colours.copy()
            legal = buffer[: fast.legal_moves(meta, colours, buffer)].tolist()
            for action in rng.sample(legal, min(40, len(legal))):
                kind = fast.play(meta, colours, action)
                fast.unplay(meta, colours, action, kind)
                assert np.array_equal(meta, before_meta), action
                for square, height in enumerate(meta[fast.HEIGHTS : fast.HEIGHTS + size**2]):
                    assert np.array_equal(
                        colours[square, :height], before_colours[square, :height]
                    ), action
            fast.play(
                meta,
                colours,
                rng.choice(buffer[: fast.legal_moves(meta, colours, buffer)].tolist()),
            )


def turned_tps(tps: str, symmetry: int) -> str:
    """`tps` with its board under one of the square's symmetries, the grid of cells
    turned (and mirrored from 4 on) as `planes.symmetric` turns planes."""
    from mancala.games.tak.planes import symmetric

    board, *rest = tps.split(" ")
    rows = []
    for row in board.split("/"):
        cells = []
        for cell in row.split(","):
            cells += ["x"] * int(cell[1:] or 1) if cell.startswith("x") else [cell]
        rows.append(cells)
    grid = symmetric(np.array(rows, dtype=object), symmetry)
    return " ".join(["/".join(",".join(row) for row in grid), *rest])


@settings(max_examples=40, deadline=None)
@given(size=st.integers(3, 6), seed=st.integers(0, 2**16))
def test_the_square_s_symmetries_keep_the_moves_and_the_value(size, seed):
    """A position turned or mirrored has as many moves, the same value and the same
    outcome; its planes are the position's planes under one symmetry each, and each
    symmetry of the planes is one turned position's (the networks' augmentation)."""
    from mancala.games.tak.evaluate import value
    from mancala.games.tak.planes import SYMMETRIES, planes, symmetric

    rng = random.Random(seed)
    state = new_tak(size)
    for _ in range(rng.randrange(40)):
        if state.is_over():
            break
        state = state.play(rng.choice(state.legal_moves()))
    seen = planes(state, 0)
    matched = set()
    for symmetry in range(SYMMETRIES):
        turned = from_tps(turned_tps(state.to_tps(), symmetry))
        assert len(turned.legal_moves()) == len(state.legal_moves())
        assert (turned.outcome is None) == (state.outcome is None)
        if state.outcome is None:
            assert value(turned) == value(state)
        got = planes(turned, 0)
        matched |= {k for k in range(SYMMETRIES) if (symmetric(seen, k) == got).all()}
    assert matched == set(range(SYMMETRIES))
