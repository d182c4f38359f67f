"""TEI both ways, through real subprocesses: the lab's engine (`mancala tei`) answers
the protocol and bad lines without dying, and plays whole games against the lab's `tei:`
player (which runs it as an outside program) in both colours, with no protocol error."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mancala.ai.registry import available_players, make_player
from mancala.ai.tei import TEIEngine, move_seconds
from mancala.arena.match import play_game
from mancala.core.paths import ROOT
from mancala.games import new_game
from mancala.games.tak.state import new_tak


def talk(lines: list[str], player: str | None = "minimax") -> list[str]:
    """The engine's whole answer to `lines` (then the end of input); `player` None: the
    engine named no player."""
    done = subprocess.run(
        [sys.executable, "-m", "mancala", "tei", *([player] if player else [])],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


@pytest.mark.slow
def test_the_engine_answers_the_protocol_and_survives_bad_lines():
    out = talk(
        [
            "tei",
            "isready",
            "setoption name HalfKomi value 4",
            "teinewgame 5",
            "position startpos moves a1 e5",
            "go movetime 100",
            "nonsense",
            "position startpos moves zz9",
            "go movetime 100",
            "setoption name HalfKomi value many",
            "teinewgame 11",
            "position tps x4/x4/x4/x4 1 1",
            "teinewgame 4",
            "position tps x4/x4/x4/x4 1 1",
            "go wtime 2000 btime 2000",
            "quit",
            "isready",  # after quit: never read
        ]
    )
    assert out[:4] == [
        "id name Mancala lab minimax",
        "id author the Mancala lab",
        "option name HalfKomi type spin default 0 min -128 max 128",
        "teiok",
    ]
    assert out[4] == "readyok" and out.count("readyok") == 1
    moves = [line.split()[1] for line in out if line.startswith("bestmove")]
    assert len(moves) == 2
    after = new_tak(5, komi=4)
    after = after.play(after.parse_move("a1")).play(after.parse_move("e5"))
    assert moves[0] in {after.move_name(m) for m in after.legal_moves()}
    opening = new_tak(4)
    assert moves[1] in {opening.move_name(m) for m in opening.legal_moves()}
    infos = [line for line in out if line.startswith("info ") and "error" not in line]
    assert len(infos) == 2 and all("depth" in line and "score cp" in line for line in infos)
    errors = [line for line in out if line.startswith("info string error")]
    assert len(errors) == 5, out  # nonsense, zz9, go without a position, many, 11
    assert "unknown command 'nonsense'" in errors[0] and "zz9" in errors[1]
    assert "size 3..8, not 11" in errors[4]


def test_a_player_that_cannot_play_tak_is_refused(lab_main):
    done = lab_main("tei", "exact")
    assert done.returncode == 2 and "does not play Tak" in done.stderr


@pytest.fixture
def lab_engine(tmp_path):
    """The lab's engine as a program, as a controller runs it."""
    program = tmp_path / "lab-engine"
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mancala tei minimax:2\n')
    program.chmod(0o755)
    return program


@pytest.mark.slow
@pytest.mark.parametrize("seat", [0, 1])
def test_the_lab_engine_plays_whole_games_against_the_tei_player(lab_engine, seat):
    outside = make_player(f"tei:{lab_engine},movetime=50")
    players = [make_player("greedy", seed=seat), outside]
    if seat == 0:
        players.reverse()
    try:
        record = play_game(players, new_game("tak", size=4, komi=2), max_plies=120)
        process = outside.process
    finally:
        outside.close()
    assert record["players"][seat] == f"tei:{lab_engine},movetime=50"
    assert len(record["moves"]) > 4
    assert process is not None and process.poll() is not None  # ended by close()


def test_a_tei_engine_that_dies_or_does_not_exist_is_a_clear_error(tmp_path, lab_main):
    with pytest.raises(ValueError, match="cannot run the TEI engine"):
        make_player(f"tei:{tmp_path / 'nothing'}").choose_move(new_tak(4))
    silent = tmp_path / "silent"
    silent.write_text("#!/bin/sh\nexit 0\n")
    silent.chmod(0o755)
    with pytest.raises(ValueError, match="silent ended"):
        make_player(f"tei:{silent}").choose_move(new_tak(4))
    with pytest.raises(ValueError, match="only movetime"):
        make_player("tei:x,depth=3")
    # an engine that dies in a game: the command says so in a line, no traceback
    run = lab_main("tournament", "1", "greedy", f"tei:{silent}", "--variant", "tak")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"mancala tournament: {silent} ended" in run.stderr


def test_tei_is_never_offered_by_default():
    assert "tei" not in available_players(include_interactive=False)
    assert isinstance(make_player("tei:x"), TEIEngine)  # named on a command line, it is made
    assert os.sep not in "tei"


def test_move_time_from_a_clock():
    assert move_seconds({"wtime": 20000, "btime": 1000}, 0) == 1.0
    with pytest.raises(ValueError):
        move_seconds({}, 0)


@pytest.mark.slow
def test_an_engine_that_ended_is_started_again_at_the_next_move(lab_engine):
    outside = make_player(f"tei:{lab_engine},movetime=20")
    state = new_tak(4)
    try:
        assert outside.choose_move(state) in state.legal_moves()
        outside.process.kill()
        outside.process.wait()
        assert outside.choose_move(state) in state.legal_moves()  # a new engine answers
    finally:
        outside.close()


def test_moves_of_the_same_time_are_searched_by_one_player_that_keeps_its_table():
    from mancala.commands.tei import player_maker

    make = player_maker("minimax")
    player = make(0.1)
    state = new_tak(5).play(new_tak(5).parse_move("a1"))
    player.choose_move(state)
    assert make(0.1) is player  # its table, filled by the move before, is kept
    other = make(0.2)
    assert other is not player and other.seconds != player.seconds
    assert make(0.1) is not player  # only the last time's player is kept
    fixed = player_maker("minimax:2")
    assert fixed(0.1) is fixed(0.5)


def test_a_name_with_a_choice_but_no_budget_thinks_for_each_moves_time():
    """`minimax:evaluation=hand` names how to value positions, not how long to think: the
    move's time rules it, as it does `minimax`'s; a budget beside the choice is kept."""
    from mancala.commands.tei import player_maker

    hand = player_maker("minimax:evaluation=hand")
    assert (hand(0.1).seconds, hand(0.1).evaluation) == (0.08, "hand")
    assert hand(0.5).seconds == 0.4
    kept = player_maker("minimax:t=0.2,evaluation=hand")
    assert kept(0.1).seconds == kept(0.5).seconds == 0.2 and kept(0.1).evaluation == "hand"


def test_the_default_engine_plays_az_where_its_guide_ships_and_the_alpha_beta_elsewhere():
    from mancala.ai.az import AZ
    from mancala.ai.minimax import Minimax
    from mancala.commands.tei import DEFAULT_PLAYERS, BoardPlayers

    make = BoardPlayers(DEFAULT_PLAYERS)
    five, four = new_tak(5), new_tak(4)
    assert isinstance(make(0.1, five), AZ) and make(0.1, five).seconds == 0.08
    assert isinstance(make(0.1, four), Minimax) and make(0.1, four).seconds == 0.08
    assert make(0.1, four).choose_move(four) in four.legal_moves()


def test_the_warm_up_makes_a_first_move_with_every_player_even_one_no_5x5_or_6x6_needs():
    """az plays 5x5 and 6x6 where its guides ship, so minimax plays only the other boards:
    it is warmed too, and its warmed player makes the first move of a 4x4 game."""
    from mancala.commands.tei import DEFAULT_PLAYERS, BoardPlayers

    players = BoardPlayers(DEFAULT_PLAYERS)
    warmed = players.warm_up(0.05)
    assert set(warmed) == set(DEFAULT_PLAYERS)
    assert players(0.05, new_tak(4)) is warmed["minimax"]
    assert players(0.05, new_tak(6)) is warmed["az"]


@pytest.mark.slow
def test_az_and_the_default_serve_the_boards_they_play_and_say_so_for_the_others():
    """az plays only the boards it has weights or a guide for: served alone, it starts,
    plays 5x5 and answers an error for 4x4; the default plays both."""
    lines = ["tei", "teinewgame 5", "position startpos moves a1 e5", "go movetime 100"]
    lines += ["teinewgame 4", "position tps x4/x4/x4/x4 1 1", "go movetime 100", "quit"]
    az, default = talk(lines, "az"), talk(lines, None)
    assert az[0] == "id name Mancala lab az"
    assert len([line for line in az if line.startswith("bestmove")]) == 1
    assert any("error" in line and "tak(size=4" in line for line in az)
    assert default[0] == "id name Mancala lab az or minimax"
    assert len([line for line in default if line.startswith("bestmove")]) == 2
