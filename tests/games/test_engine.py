"""The numba engine (mancala/games/sowing/engine.py) agrees with the rules (mancala/game_state.py)
move for move: every legal move list, board, player to move and ending compared over
thousands of random games of every variant, and over hypothesis-drawn positions."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala.game_state import GameState
from mancala.games.sowing import engine

RULES = {
    "kalah(6,4)": dict(variant="kalah"),
    "kalah(6,4) empty capture": dict(variant="kalah", empty_capture=True),
    "kalah(4,3)": dict(variant="kalah", houses=4, seeds=3),
    "kalah(3,6) empty capture": dict(variant="kalah", houses=3, seeds=6, empty_capture=True),
    "sungka": dict(variant="sungka"),
    "sungka relay_limit=2": dict(variant="sungka", relay_limit=2),
}


def engine_moves(board: np.ndarray, player: int, state: GameState) -> list[int]:
    out = np.empty(state.houses, np.int64)
    n = engine.legal_moves(board, player, state.houses, state.variant == "kalah", out)
    return out[:n].tolist()


def compare_game(start: GameState, rng: random.Random) -> int:
    """Play one random game through both; assert they agree at every step; its length."""
    board, player, rules = engine.to_arrays(start)
    state, moves = start, 0
    while True:
        legal = state.legal_moves()
        assert engine_moves(board, player, state) == legal, state
        assert bool(engine.is_over(board, rules[0], rules[1])) == state.is_over()
        if not legal:
            s0, s1 = state.scores()
            assert engine.score_diff(board, rules[0]) == s0 - s1
            return moves
        move = rng.choice(legal)
        player = engine.play(board, player, move, *rules)
        state = state.play(move)
        moves += 1
        assert tuple(board.tolist()) == state.board, (state, move)
        assert player == state.player, (state, move)


@pytest.mark.parametrize("name", RULES)
def test_random_games_agree_move_for_move(name):
    options = dict(RULES[name])
    start = GameState.new(options.pop("variant"), **options)
    rng = random.Random(name)
    games = 600
    moves = sum(compare_game(start, rng) for _ in range(games))
    assert moves > 10 * games  # real games, not openings that end at once


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_position_and_move_agree(data):
    variant = data.draw(st.sampled_from(["kalah", "sungka"]))
    houses = data.draw(st.integers(1, 7))
    seeds = data.draw(st.integers(1, 6))
    cuts = sorted(data.draw(st.lists(st.integers(0, 2 * houses * seeds), min_size=2 * houses + 1)))
    cuts = cuts[: 2 * houses + 1]
    total = 2 * houses * seeds
    edges = [0, *cuts, total]
    board = [b - a for a, b in zip(edges, edges[1:])]
    options = {"houses": houses, "seeds": seeds}
    if variant == "kalah":
        options["empty_capture"] = data.draw(st.booleans())
    state = GameState.new(variant, board, data.draw(st.sampled_from([0, 1])), **options)
    arrays, player, rules = engine.to_arrays(state)
    assert engine_moves(arrays, player, state) == state.legal_moves()
    for move in state.legal_moves():
        after = arrays.copy()
        nxt = engine.play(after, player, move, *rules)
        expected = state.play(move)
        assert (tuple(after.tolist()), nxt) == (expected.board, expected.player)


def test_random_game_record_replays_through_the_rules():
    for options in RULES.values():
        options = dict(options)
        start = GameState.new(options.pop("variant"), **options)
        board, player, rules = engine.to_arrays(start)
        out = np.empty(10_000, np.int64)
        for game in range(20):
            count = engine.random_game_record(board, player, *rules, game, out)
            state = start
            for move in out[:count].tolist():
                state = state.play(move)  # IllegalMove if the engine went wrong
            assert state.is_over()


def test_random_games_count_every_game():
    board, player, rules = engine.to_arrays(GameState.new())
    wins0, wins1, draws, moves = engine.random_games(board, player, *rules, 500, 7)
    assert wins0 + wins1 + draws == 500
    assert wins0 > 0 and wins1 > 0
    assert moves > 500 * 10
    assert engine.random_games(board, player, *rules, 500, 7) == (wins0, wins1, draws, moves)
    assert board.tolist() == list(GameState.new().board)  # the start is left as it was


def test_bench_verify_compares_moves_and_refuses_bad_counts(capsys):
    from mancala.commands import bench

    assert bench.main(["--verify", "3000"]) == 0
    assert "3,000 moves" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        bench.main(["--verify", "0"])
    assert stop.value.code == 2
    assert "bench: argument --verify: must be >= 1, not 0" in capsys.readouterr().err
