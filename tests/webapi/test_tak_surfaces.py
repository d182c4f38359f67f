"""Tak through the lab's commands: the tournament, the terminal game, the records and the
one game flag (--variant) with Tak's own options."""

from __future__ import annotations

import itertools
import json

import pytest

from mancala.ai import make_player
from mancala.arena.match import play_games
from mancala.arena.records import GameLog, replay
from mancala.commands import play, tournament
from mancala.games import new_game
from mancala.games.tak.notation import square_name


def test_a_tak_tournament_prints_its_tables_and_records_games_that_replay(tmp_path, capsys):
    record = tmp_path / "tak.jsonl"
    argv = ["2", "luck", "weighted", "greedy", "--variant", "tak", "--size", "3", "--plies", "2"]
    assert tournament.main([*argv, "--record", str(record)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tak(size=3, komi=0): 3 players") and "| greedy |" in out
    assert "Openings: 1: " in out
    games = list(GameLog([record]))
    assert len(games) == 12 and not GameLog([record]).skipped
    for game in games:
        assert game["variant"] == "tak" and game["options"] == {"size": 3, "komi": 0}
        assert "scores" not in game
        end = replay(game)[-1]
        assert end.is_over() and end.winner() == game["winner"]


def test_a_tak_record_with_a_wrong_move_is_skipped(tmp_path):
    good = {"format": 1, "variant": "tak", "options": {"size": 3}, "moves": [0, 3, 6]}
    bad = dict(good, moves=[0, 0])
    unknown = dict(good, variant="go")
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (good, bad, unknown)) + "\n")
    log = GameLog([path])
    assert [r["moves"] for r in log] == [[0, 3, 6]] and log.skipped == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["2", "luck", "greedy", "--variant", "tak", "--houses", "4"], "--houses is not a rule"),
        (["2", "luck", "greedy", "--size", "5"], "--size is not a rule of kalah"),
        (["2", "luck", "greedy", "--variant", "tak", "--size", "9"], "must be 3..8, not 9"),
        (["2", "luck", "max", "--variant", "tak"], "max cannot play tak(size=5, komi=0)"),
        (["2", "luck", "greedy", "--variant", "tak", "--balanced", "2"], "tak has none"),
    ],
)
def test_bad_tak_options_exit_2_with_a_message(argv, message, capsys):
    try:
        code = tournament.main(argv)
    except SystemExit as stop:  # argparse's own checks
        code = stop.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_person_plays_tak_in_ptn_to_the_end():
    squares = itertools.cycle([square_name(3, sq) for sq in range(9)])
    told = []
    end = play.play_terminal(
        "luck",
        new_game("tak", size=3),
        seed=1,
        ask=lambda prompt: next(squares),
        tell=told.append,
    )
    assert end.is_over()
    assert told[0].startswith("You play white. Type a move in PTN")
    assert any(line.startswith("luck plays ") for line in told)
    assert any("is not empty" in line for line in told)  # a square taken: asked again
    assert play.result_line(end, 0) in {
        "A draw.",
        "You win (road).",
        "You lose (road).",
        "You win (flat).",
        "You lose (flat).",
    }


def test_play_refuses_a_player_that_cannot_play_tak(capsys):
    assert play.main(["exact", "--variant", "tak"]) == 2
    assert "exact cannot play tak(size=5, komi=0)" in capsys.readouterr().err


def test_a_game_past_the_ply_limit_stops_as_an_unfinished_draw():
    players = [make_player("luck", seed=1), make_player("luck", seed=2)]
    [record] = play_games(players, [new_game("tak")], max_plies=10)
    assert record["unfinished"] and record["winner"] is None and len(record["moves"]) == 10
    assert not replay(record)[-1].is_over()
