"""The long solves: every move proved and saved (values, resuming, refusing other records,
Ctrl+C), and the database size the offline commands choose."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from mancala.game_state import GameState
from mancala.games.sowing.solver import Solver, cache_path, database
from mancala.games.sowing.solver.campaign import (
    _bounds_in_progress,
    _Campaign,
    load_record,
    solve_every_move,
)
from mancala.games.sowing.solver.database import database_seeds, largest_cached


def small_solver() -> Solver:
    return Solver(5, False, 6, cache_dir=None, progress=False, tt_bits=16)


def test_every_move_is_proved_as_the_plain_solve_proves_it(tmp_path):
    state = GameState.new(houses=5, seeds=3)
    record = solve_every_move(small_solver(), state, tmp_path / "r.json", out=None)
    expected = small_solver().solve(state, all_moves=True)
    assert {int(m): e["value"] for m, e in record["moves"].items()} == expected["moves"]
    assert record["value"] == expected["value"] and record["best"] == expected["best"]
    assert json.loads((tmp_path / "r.json").read_text()) == record
    assert "in_progress" not in record  # the bound tests' nodes count in the total only
    assert record["nodes"] > sum(e["nodes"] for e in record["moves"].values())


def test_threads_prove_moves_side_by_side_to_the_same_values(tmp_path):
    state = GameState.new(houses=5, seeds=3)
    alone = solve_every_move(small_solver(), state, tmp_path / "1.json", out=None)
    shared = solve_every_move(small_solver(), state, tmp_path / "3.json", out=None, workers=3)
    assert {m: e["value"] for m, e in shared["moves"].items()} == {
        m: e["value"] for m, e in alone["moves"].items()
    }
    assert shared["nodes"] >= sum(e["nodes"] for e in shared["moves"].values())


def test_a_stopped_record_goes_on_from_its_proved_moves_and_bounds(tmp_path):
    state = GameState.new(houses=5, seeds=3)
    path = tmp_path / "r.json"
    whole = solve_every_move(small_solver(), state, path, out=None)
    # as if stopped while proving the costliest move, its value known within 2 seeds
    move = max(whole["moves"], key=lambda m: whole["moves"][m]["nodes"])
    value = whole["moves"][move]["value"]
    partial = json.loads(path.read_text())
    del partial["moves"][move], partial["value"], partial["best"]
    partial["in_progress"] = {move: {"lower": value - 2, "upper": value + 2}}
    path.write_text(json.dumps(partial))
    record = solve_every_move(small_solver(), state, path, out=None)
    assert record["moves"][move]["value"] == value
    assert record["value"] == whole["value"] and record["best"] == whole["best"]
    for other in set(whole["moves"]) - {move}:  # not searched again
        assert record["moves"][other] == whole["moves"][other]
    assert record["nodes"] >= partial["nodes"] + record["moves"][move]["nodes"]


def test_a_record_of_another_position_is_refused_and_kept(tmp_path):
    path = tmp_path / "r.json"
    solve_every_move(small_solver(), GameState.new(houses=5, seeds=3), path, out=None)
    before = path.read_text()
    other = GameState.new(houses=5, seeds=3, empty_capture=True)
    with pytest.raises(ValueError, match="not a solve record of this position"):
        solve_every_move(small_solver(), other, path, out=None)
    path.with_name("bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a readable solve record"):
        load_record(path.with_name("bad.json"), other)
    assert path.read_text() == before


@pytest.mark.slow
def test_ctrl_c_stops_the_search_at_once_and_keeps_the_record(tmp_path):
    record = tmp_path / "k54.json"
    command = [sys.executable, "-m", "mancala", "solve", "--houses", "5", "--seeds", "4"]
    command += ["--max-seeds", "8", "--tt-bits", "18", "--save", str(record), "--workers", "2"]
    env = {**os.environ, "MANCALA_CACHE_DIR": str(tmp_path)}
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        while not record.exists() and proc.poll() is None:  # a whole solve takes a minute
            time.sleep(0.1)
        time.sleep(1)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err.decode()
    assert f"every proved move is in {record}" in err.decode()
    saved = json.loads(record.read_text())
    assert "value" not in saved and saved["seconds"] > 0
    in_progress = {int(m) for m in saved["in_progress"]}
    assert len(in_progress) == 2 and in_progress <= set(range(5)) - {int(m) for m in saved["moves"]}


def test_commands_use_the_largest_valid_database_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path))
    for n in (3, 5):
        database(3, n, False, tmp_path, progress=False)
    database(3, 7, True, tmp_path, progress=False)  # another rule
    assert largest_cached(3, False) == 5
    broken = cache_path(tmp_path, 3, 6, False)
    broken.write_bytes(cache_path(tmp_path, 3, 5, False).read_bytes()[:-1])  # cut short
    assert largest_cached(3, False) == 5 and largest_cached(4, False) == -1
    kalah_3_3 = GameState.new(houses=3, seeds=3)  # 18 seeds in all
    assert database_seeds(kalah_3_3, None) == 18  # the default (45) capped
    assert database_seeds(kalah_3_3, 4) == 4
    databases = importlib.import_module("mancala.games.sowing.solver.database")
    monkeypatch.setattr(databases, "default_max_seeds", lambda houses: 4)  # below the cached
    assert database_seeds(kalah_3_3, None) == 5
    from mancala.ai import solver as players

    assert players.players_database(kalah_3_3) == 5  # the players' too
    assert players.database_ready(kalah_3_3)
    assert players.shared_solver(kalah_3_3).max_seeds == 5


def test_the_value_is_known_once_every_other_move_is_bounded_below_the_best(tmp_path):
    state = GameState.new(houses=5, seeds=3)
    path = tmp_path / "r.json"
    whole = solve_every_move(small_solver(), state, path, out=None)
    best = whole["value"]
    partial = json.loads(path.read_text())
    others = [m for m in partial["moves"] if partial["moves"][m]["value"] < best]
    for move in others:  # as if only tested so far: each shown to be below the best
        del partial["moves"][move]
    partial["in_progress"] = {m: {"lower": -99, "upper": best} for m in others}
    del partial["value"], partial["best"]
    campaign = _Campaign([small_solver()], state, path, None)
    campaign.record, campaign.bounds = partial, _bounds_in_progress(partial)
    campaign._finish()
    assert campaign.record["value"] == best and "best" not in campaign.record
    campaign.bounds[int(others[0])] = (-99, best + 1)  # one might still be better
    del campaign.record["value"]
    campaign._finish()
    assert "value" not in campaign.record


def test_the_likeliest_best_move_is_proved_first_then_the_least_promising(tmp_path):
    state = GameState.new(houses=5, seeds=3)

    def lead(child: GameState) -> float:  # the mover's store lead: a crude guess
        return float(
            child.board[child.store(child.player)] - child.board[child.store(1 - child.player)]
        )

    campaign = _Campaign([small_solver(), small_solver()], state, tmp_path / "r.json", lead)
    campaign.plan()
    guesses = [g for _, g in campaign.queue]
    assert guesses == sorted(guesses, reverse=True) and guesses[0] > guesses[-1]
    likeliest, least = campaign.queue[0], campaign.queue[-1]
    assert campaign._next() == ("exact", *likeliest)  # its value bounds the others' tests
    assert campaign._next() == ("exact", *least)  # the longest proof, begun at once
