"""The Kalah solver: ranking, the rules on relative boards, the endgame database and its
cache, exact values against a plain minimax over game_state, the player and the scripts.

Small boards only (Kalah(6,4) takes minutes: see docs/solver.md)."""

import importlib
import json
import random
import sys
from functools import cache
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala.ai import make_player
from mancala.ai.solver import PerfectPlayer
from mancala.commands import measure_perfect, solve
from mancala.game_state import GameState
from mancala.games.sowing.solver import OutOfBudget, Solver, cache_path, database, relative_board
from mancala.games.sowing.solver.database import (
    HEADER_BYTES,
    build_database,
    load_database,
    save_database,
)
from mancala.games.sowing.solver.ranking import binomial_table, entries, rank
from mancala.games.sowing.solver.rules import apply_move

sys.setrecursionlimit(10_000)


@cache
def plain(state: GameState) -> int:
    """Exhaustive minimax over game_state: the final store difference for the mover."""
    if state.is_over():
        scores = state.scores()
        return scores[state.player] - scores[1 - state.player]
    best = -1000
    for move in state.legal_moves():
        child = state.play(move)
        best = max(best, plain(child) if child.player == state.player else -plain(child))
    return best


def plain_moves(state: GameState) -> dict[int, int]:
    out = {}
    for move in state.legal_moves():
        child = state.play(move)
        out[move] = plain(child) if child.player == state.player else -plain(child)
    return out


@cache
def solver_for(houses: int, empty_capture: bool, max_seeds: int) -> Solver:
    return Solver(houses, empty_capture, max_seeds, cache_dir=None, progress=False, tt_bits=16)


def random_position(rng: random.Random, houses: int, seeds: int, ec: bool, plies: int):
    state = GameState.new(houses=houses, seeds=seeds, empty_capture=ec)
    for _ in range(plies):
        if state.is_over():
            break
        state = state.play(rng.choice(state.legal_moves()))
    return state


# ----- ranking and rules -----------------------------------------------------------------


def test_rank_numbers_every_board_once_smaller_totals_first():
    k, top = 4, 6
    binom = binomial_table(top, k)
    seen = []
    for counts in product(range(top + 1), repeat=k):
        if sum(counts) <= top:
            seen.append((rank(np.array(counts, np.int64), binom, 0), sum(counts)))
    ranks = sorted(r for r, _ in seen)
    assert ranks == list(range(entries(top, k // 2)))
    assert max(r for r, n in seen if n < top) < min(r for r, n in seen if n == top)


def test_rank_with_shift_reads_the_board_from_the_other_side():
    binom = binomial_table(12, 6)
    b = np.array([1, 0, 2, 3, 0, 1], np.int64)
    assert rank(b, binom, 3) == rank(np.array([3, 0, 1, 1, 0, 2], np.int64), binom, 0)


@pytest.mark.parametrize("ec", [False, True])
def test_moves_on_relative_boards_agree_with_game_state(ec):
    rng = random.Random(7)
    for _ in range(400):
        houses = rng.choice([2, 3, 4, 6])
        state = random_position(rng, houses, rng.choice([1, 3, 4, 7]), ec, rng.randrange(40))
        if state.is_over():
            continue
        me, store = state.player, state.store(state.player)
        for move in state.legal_moves():
            board = relative_board(state)
            gain, code = apply_move(board, move, houses, ec)
            after = state.play(move)
            assert code == (2 if after.is_over() else 1 if after.player == me else 0)
            mine = after.scores()[me] - state.board[store]
            theirs = after.scores()[1 - me] - state.board[state.store(1 - me)]
            assert gain == mine - theirs
            if code < 2:
                assert list(board) == list(after.side(me) + after.side(1 - me))


# ----- the endgame database --------------------------------------------------------------


@pytest.mark.parametrize("ec", [False, True])
def test_every_database_value_equals_plain_minimax(ec):
    houses, top = 2, 8
    db = build_database(houses, top, ec, progress=False)
    binom = binomial_table(top, 2 * houses)
    for counts in product(range(top + 1), repeat=2 * houses):
        if not sum(counts) <= top or not any(counts[:houses]) or not any(counts[houses:]):
            continue
        spare = 2 * houses * 4 - sum(counts)
        board = counts[:houses] + (spare,) + counts[houses:] + (0,)
        state = GameState.new(board=board, houses=houses, seeds=4, empty_capture=ec)
        value = db[rank(np.array(counts, np.int64), binom, 0)]
        assert value == plain(state) - spare, counts


@pytest.mark.parametrize("ec", [False, True])
def test_threads_building_small_chunks_give_the_same_database(ec):
    alone = build_database(3, 12, ec, progress=False)
    shared = build_database(3, 12, ec, progress=False, workers=3, chunk_size=7)
    assert (shared != -128).all() and np.array_equal(alone, shared)


def test_database_cache_is_written_once_and_reused(tmp_path):
    db, seconds = database(3, 6, False, tmp_path, progress=False)
    assert seconds > 0
    again, seconds = database(3, 6, False, tmp_path, progress=False)
    assert seconds == 0.0 and np.array_equal(db, again)
    assert [p.name for p in tmp_path.iterdir()] == [cache_path(tmp_path, 3, 6, False).name]


@pytest.mark.parametrize("damage", ["flip", "truncate", "foreign", "garbage", "empty"])
def test_a_bad_cache_file_is_detected_and_rebuilt(tmp_path, damage, capsys):
    good, _ = database(3, 6, True, tmp_path, progress=False)
    path = cache_path(tmp_path, 3, 6, True)
    raw = bytearray(path.read_bytes())
    if damage == "flip":
        raw[HEADER_BYTES + 100] ^= 1
    elif damage == "truncate":
        raw = raw[:-10]
    elif damage == "foreign":  # a database of the other capture rule under this name
        other, _ = database(3, 6, False, tmp_path / "other", progress=False)
        raw = bytearray(cache_path(tmp_path / "other", 3, 6, False).read_bytes())
        assert not np.array_equal(other, good)
    elif damage == "garbage":
        raw = bytearray(b"not a database at all" * 100)
    else:
        raw = bytearray()
    path.write_bytes(bytes(raw))
    assert load_database(path, 3, 6, True) is None
    rebuilt, seconds = database(3, 6, True, tmp_path, progress=True)
    assert seconds > 0 and np.array_equal(rebuilt, good)
    assert "not a valid database: rebuilding it" in capsys.readouterr().err
    assert np.array_equal(load_database(path, 3, 6, True), good)


@pytest.mark.parametrize("ec", [False, True])
def test_a_build_goes_on_from_the_largest_smaller_database_in_the_cache(tmp_path, ec):
    whole = build_database(3, 10, ec, progress=False)
    marked = whole[: entries(6, 3)].copy()
    marked[-1] = 99  # a value no build makes: seen again only if these levels are reused
    save_database(cache_path(tmp_path, 3, 6, ec), 3, 6, ec, marked)
    database(3, 4, ec, tmp_path, progress=False)
    grown, seconds = database(3, 10, ec, tmp_path, progress=False)
    assert seconds > 0 and np.array_equal(grown[: entries(6, 3)], marked)
    save_database(cache_path(tmp_path, 3, 6, ec), 3, 6, ec, whole[: entries(6, 3)])
    cache_path(tmp_path, 3, 10, ec).unlink()
    assert np.array_equal(database(3, 10, ec, tmp_path, progress=False)[0], whole)


def test_a_stopped_build_keeps_the_levels_it_finished(tmp_path, monkeypatch, capsys):
    module = importlib.import_module("mancala.games.sowing.solver.database")
    build_chunk = module._build_chunk

    def stopped_at_level_9(board, *args):
        if board.sum() >= 9:
            raise KeyboardInterrupt
        return build_chunk(board, *args)

    monkeypatch.setattr(module, "_build_chunk", stopped_at_level_9)
    with pytest.raises(KeyboardInterrupt):
        database(3, 12, True, tmp_path, progress=True, workers=2)
    assert f"levels built are kept in {cache_path(tmp_path, 3, 8, True)}" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == [cache_path(tmp_path, 3, 8, True).name]
    kept = load_database(cache_path(tmp_path, 3, 8, True), 3, 8, True)
    assert np.array_equal(kept, build_database(3, 8, True, progress=False))
    monkeypatch.setattr(module, "_build_chunk", build_chunk)
    grown, _ = database(3, 12, True, tmp_path, progress=False)
    assert np.array_equal(grown, build_database(3, 12, True, progress=False))


# ----- exact values ----------------------------------------------------------------------


@pytest.mark.parametrize("ec", [False, True])
@pytest.mark.parametrize("max_seeds", [0, 5, 18])
def test_kalah_3_3_from_the_opening_equals_plain_minimax(ec, max_seeds):
    state = GameState.new(houses=3, seeds=3, empty_capture=ec)
    result = solver_for(3, ec, max_seeds).solve(state)
    assert result["value"] == plain(state) == 2
    assert result["moves"] == plain_moves(state)
    assert result["best"] == [m for m, v in plain_moves(state).items() if v == 2]


@pytest.mark.parametrize("ec,value", [(False, 6), (True, 8)])
def test_kalah_4_3_opening_value(ec, value):
    # The plain minimax above gives +6 (standard) and +8 (empty capture) in minutes (five
    # million positions), so it ran outside the suite; here two database sizes agree on it.
    state = GameState.new(houses=4, seeds=3, empty_capture=ec)
    small = solver_for(4, ec, 6).solve(state)
    large = solver_for(4, ec, 14).solve(state)
    assert small["value"] == large["value"] == value
    assert small["moves"] == large["moves"]
    assert small["nodes"] > large["nodes"] > 0


@pytest.mark.parametrize("houses,seeds,left", [(4, 3, 12), (6, 3, 10)])
def test_late_positions_of_bigger_boards_equal_plain_minimax(houses, seeds, left):
    rng = random.Random(houses * 10 + seeds)
    checked = 0
    while checked < 20:
        ec = rng.random() < 0.5
        state = random_position(rng, houses, seeds, ec, rng.randrange(8, 60))
        if state.is_over() or sum(state.side(0)) + sum(state.side(1)) > left:
            continue
        assert solver_for(houses, ec, 4).solve(state)["moves"] == plain_moves(state), state
        checked += 1


@pytest.mark.slow
def test_kalah_6_3_opening_search_agrees_across_database_sizes():
    state = GameState.new(houses=6, seeds=3)
    a = solver_for(6, False, 8).solve(state, all_moves=False)
    b = solver_for(6, False, 12).solve(state, all_moves=False)
    assert a["value"] == b["value"] and a["best"] == b["best"]


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    houses=st.sampled_from([2, 3]),
    counts=st.lists(st.integers(0, 4), min_size=6, max_size=6),
    stores=st.tuples(st.integers(0, 5), st.integers(0, 5)),
    player=st.integers(0, 1),
    ec=st.booleans(),
)
def test_random_small_positions_equal_plain_minimax(houses, counts, stores, player, ec):
    side = 2 * houses
    counts = counts[:side]
    if not any(counts[:houses]) or not any(counts[houses:]):
        return
    total = sum(counts) + sum(stores)
    spare = (-total) % side  # top up a store so that the total fits some seed count
    board = counts[:houses] + [stores[0] + spare] + counts[houses:] + [stores[1]]
    state = GameState.new(board=board, player=player, houses=houses,
                          seeds=(total + spare) // side, empty_capture=ec)  # fmt: skip
    result = solver_for(houses, ec, 2).solve(state)
    assert result["value"] == plain(state)
    assert result["moves"] == plain_moves(state)


def test_a_node_budget_stops_the_search_and_leaves_the_table_sound():
    state = GameState.new(houses=4, seeds=3)
    solver = Solver(4, False, 4, cache_dir=None, progress=False, tt_bits=16)
    with pytest.raises(OutOfBudget):
        solver.solve(state, nodes=50)
    assert solver.solve(state)["value"] == 6


# ----- bad input -------------------------------------------------------------------------


def test_sungka_and_other_rules_are_refused():
    solver = solver_for(3, False, 5)
    with pytest.raises(ValueError, match="Sungka|sungka.*not supported"):
        solver.solve(GameState.new("sungka"))
    with pytest.raises(ValueError, match="empty_capture"):
        solver.solve(GameState.new(houses=3, seeds=2, empty_capture=True))
    with pytest.raises(ValueError, match="not supported"):
        PerfectPlayer().choose_move(GameState.new("sungka"))


@pytest.mark.parametrize(
    "position,message",
    [
        ('{"board": [4, 4, 4], "player": 0}', "pits"),
        ('{"board": [-1, 5, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0]}', "non-negative"),
        ('{"board": [9, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0], "seeds": 4}', "seeds"),
        ('{"board": [0, 5, 5, 5, 5, 4, 0, 4, 4, 4, 4, 4, 4, 0], "player": 2}', "player"),
        ('{"board": "x"}', "list of seed counts"),
        ("[1, 2]", "JSON object"),
        ("{nope", "not valid JSON"),
        ('{"board": [1], "colour": "red"}', "unknown key"),
        ('{"variant": "sungka", "board": [7, 7]}', "the solver plays kalah, not 'sungka'"),
        ('{"variant": "chess", "board": [1]}', "the solver plays kalah, not 'chess'"),
    ],
)
def test_solve_refuses_bad_positions_clearly(position, message, capsys):
    assert solve.main([position]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mancala solve: ") and message in err


def test_solve_refuses_sungka(capsys):
    with pytest.raises(SystemExit) as stop:
        solve.main(["--variant", "sungka"])
    assert stop.value.code == 2
    assert "solve: argument --variant: invalid choice: 'sungka'" in capsys.readouterr().err


# ----- the player and the scripts --------------------------------------------------------


@pytest.mark.slow
def test_player_plays_only_value_optimal_moves_with_seeded_ties(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path))
    rng = random.Random(3)
    for _ in range(30):
        state = random_position(rng, 3, 3, False, rng.randrange(6))
        if state.is_over():
            continue
        values = plain_moves(state)
        best = [m for m, v in values.items() if v == max(values.values())]
        picks = {make_player("solver", seed=s).choose_move(state) for s in range(12)}
        assert picks <= set(best)
        assert make_player("solver", seed=5).choose_move(state) in best
        assert make_player("solver", seed=5).evaluate(state)["moves"] == values
    tied = GameState.new(houses=3, seeds=3)  # two best moves: both get played
    assert {make_player("solver", seed=s).choose_move(tied) for s in range(20)} == {0, 1}


def test_timed_player_falls_back_to_minimax_when_the_search_cannot_finish():
    state = GameState.new(houses=3, seeds=5)
    player = PerfectPlayer(seed=1, seconds=1e-9, solver=solver_for(3, False, 2))  # no time
    assert player.choose_move(state) in state.legal_moves()
    assert player.fallback is not None
    patient = make_player("solver:t=5", seed=1, solver=solver_for(3, False, 2))
    assert patient.choose_move(state) in patient.evaluate(state)["best"]
    assert patient.fallback is None
    with pytest.raises(ValueError, match=r"solver takes t=SECONDS \(0\.001\.\.3600\)"):
        make_player("solver:fast")


def test_solve_prints_value_best_moves_and_speed(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path))
    assert solve.main(["--houses", "3", "--seeds", "3", "--all", "--max-seeds", "4"]) == 0
    out = capsys.readouterr().out
    assert "value +2" in out and "best move(s): 0 (a), 1 (b)" in out
    assert "every move: 0: +2, 1: +2, 2: -4" in out and "nodes/s" in out
    position = {"board": [0, 1, 4, 1, 3, 2, 2, 5], "player": 1, "empty_capture": True}
    assert solve.main([json.dumps(position), "--max-seeds", "3"]) == 0
    assert "Kalah(3,3), empty capture; player 1 to move" in capsys.readouterr().out


def test_perfect_play_scores_players_against_the_solver(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path))
    args = ["solver", "luck", "--houses", "3", "--seeds", "3", "--positions", "30"]
    assert measure_perfect.main([*args, "--games", "5", "--max-seeds", "14", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    solver, luck = result["players"]["solver"], result["players"]["luck"]
    assert solver["kept"] == 1.0 and solver["seeds_lost"] == 0
    assert luck["kept"] < 1.0 and luck["seeds_lost"] > 0
    for seat in ("to move", "replying"):  # nobody does better against perfect play
        assert luck["against_solver"][seat]["margin"] <= solver["against_solver"][seat]["margin"]
        assert luck["against_solver"][seat]["games"] == 5
    assert measure_perfect.main(["luck", "--houses", "3", "--games", "50", "--positions", "5"]) == 2


def test_perfect_play_measures_on_a_set_file_of_its_rules(tmp_path, monkeypatch, capsys):
    from mancala.commands import solve_set

    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path))
    made = tmp_path / "held-out.jsonl"
    board = ["--houses", "3", "--seeds", "3"]
    assert solve_set.main(["--positions", "6", "--seed", "1", "--out", str(made), *board]) == 0
    capsys.readouterr()
    assert measure_perfect.main(["solver", "luck", *board, "--set", str(made), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["positions"] == 6 and result["set"].startswith("held-out.jsonl: 6 positions")
    assert result["players"]["solver"]["kept"] == 1.0
    assert measure_perfect.main(["luck", "--houses", "4", "--seeds", "3", "--set", str(made)]) == 2
    assert "is a set of" in capsys.readouterr().err


@pytest.mark.slow
def test_solve_set_stops_at_once_on_sigterm_and_keeps_whole_lines(tmp_path):
    import os
    import signal
    import subprocess
    import time

    from mancala.arena.solved_set import read_lines
    from mancala.core.paths import ROOT

    out = tmp_path / "set.jsonl"
    command = [sys.executable, "-m", "mancala", "solve", "set", "--houses", "6", "--seeds", "3"]
    command += ["--positions", "40", "--max-seeds", "6", "--tt-bits", "16", "--out", str(out)]
    env = dict(os.environ, MANCALA_CACHE_DIR=str(tmp_path), OPENBLAS_NUM_THREADS="1")
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120  # a guard against a hang, not a measure
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and len(out.read_text().splitlines()) >= 25:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert "mancala solve set: terminated (SIGTERM)" in err
    lines = out.read_text().splitlines()
    assert 25 <= len(lines) < 41  # the header and the positions proved, no more
    assert len(list(read_lines(out))) == len(lines)  # every line whole
