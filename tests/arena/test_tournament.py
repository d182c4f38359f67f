"""The tournament: tables, ratings, openings, recording."""

import json
import subprocess
import sys

import pytest

from mancala.arena.openings import draw_openings
from mancala.arena.records import GameLog
from mancala.arena.tournament import run_tournament, win_rate_table
from mancala.commands.tournament import main
from mancala.core.paths import ROOT
from mancala.game_state import GameState


def test_results_add_up_and_mirror():
    result = run_tournament(
        ["luck", "greedy", "exact"], 10, GameState.new(), seed=3, progress=False
    )
    r = result["results"]
    for a in result["players"]:
        for b in result["players"]:
            if a != b:
                assert r[a][b]["games"] == 20
                assert r[a][b]["wins"] + r[a][b]["draws"] + r[a][b]["losses"] == 20
                assert r[a][b]["wins"] == r[b][a]["losses"]
                assert result["first"][a][b]["games"] == 10
    # greedy is far stronger than random play: it should win most games and rate higher
    assert r["greedy"]["luck"]["wins"] >= 15
    assert result["ratings"]["greedy"]["rating"] > result["ratings"]["luck"]["rating"]
    assert len(result["openings"]) == 10
    table = win_rate_table(result)
    assert table.splitlines()[0].startswith("| wins % (row vs column) | luck | greedy | exact |")


def test_openings_are_seeded_distinct_and_legal():
    start = GameState.new()
    openings = draw_openings(start, 30, 4, seed=1)
    assert openings == draw_openings(start, 30, 4, seed=1)
    assert len({tuple(o) for o in openings}) == 30
    for moves in openings:
        state = start
        for move in moves:
            state = state.play(move)


def test_command_line_prints_tables_and_records(tmp_path, capsys):
    record = tmp_path / "t.jsonl"
    assert (
        main(["2", "luck", "greedy", "--record", str(record), "--heatmap", str(tmp_path / "h.png")])
        == 0
    )
    out = capsys.readouterr().out
    assert "| wins % (row vs column) | luck | greedy | all |" in out
    assert "| rank | player | rating |" in out
    assert "Openings" in out
    assert len(list(GameLog([record]))) == 4
    assert (tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"


def test_json_output_and_sungka(capsys):
    assert main(["2", "max", "exact", "--variant", "sungka", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["variant"] == "sungka" and result["results"]["max"]["exact"]["games"] == 4


def test_bad_arguments_exit_2_with_a_message(capsys):
    assert main(["2", "luck", "nobody"]) == 2
    assert "unknown player" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["0", "luck", "greedy"])
    assert stop.value.code == 2
    assert "mancala tournament: argument games: must be >= 1, not 0" in capsys.readouterr().err
    assert main(["2", "luck", "luck"]) == 2


@pytest.mark.slow
def test_runs_as_a_file_and_as_a_module():
    for command in (
        ["mancala/tournament.py"],
        ["-m", "mancala.tournament"],
        ["-m", "mancala", "tournament"],
    ):
        done = subprocess.run(
            [sys.executable, *command, "1", "luck", "max"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert "| luck |" in done.stdout


@pytest.mark.slow
def test_balanced_openings_are_judged_even_and_bad_bounds_refused():
    from mancala.ai.minimax import Minimax
    from mancala.arena.openings import opening_value

    start = GameState.new()
    judge = Minimax(seed=0, depth=12)
    openings = draw_openings(start, 12, 4, seed=2, balanced=2)
    assert len(openings) == 12
    assert all(abs(opening_value(judge, _play(start, m))) <= 2 for m in openings)
    unscreened = [opening_value(judge, _play(start, m)) for m in draw_openings(start, 40, 4, 2)]
    assert max(abs(v) for v in unscreened) > 2  # the screen had something to remove
    with pytest.raises(ValueError, match="--balanced"):
        draw_openings(start, 2, 4, seed=0, balanced=-1)


def _play(state, moves):
    for move in moves:
        state = state.play(move)
    return state
