"""The command-line convention (mancala/core): every bad input a user met, as a case.

Commands run in-process through `main([...])` where they can; signals, the prompt's
stream and TensorFlow's start-up lines need a real process.
"""

import importlib
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

from mancala.ai.human import parse_move
from mancala.arena.records import GameLog
from mancala.commands import COMMANDS, fit, play, solve, tournament, train, usage
from mancala.commands import main as cli_main
from mancala.core.paths import ROOT
from mancala.core.stopping import (
    Terminated,
    run_command,
    signals_held,
    sigterm_as_interrupt,
    stop_if_asked,
)
from mancala.game_state import GameState
from mancala.games import MAX_HOUSES
from mancala.games.sowing.drawing import house_label

ENV = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")


def refused(main, argv, capsys) -> str:
    """The stderr of `main(argv)`, which must stop with exit code 2 (returned or raised)."""
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    return capsys.readouterr().err


# ----- one convention for every command ---------------------------------------------------


def command_files() -> set[str]:
    """Every command module: a file of mancala/commands/ with main()."""
    files = (ROOT / "mancala" / "commands").glob("*.py")
    found = {path.stem for path in files if "\ndef main(argv" in path.read_text()}
    return {f"mancala.commands.{stem}" for stem in found - {"__init__"}}


def test_every_command_module_is_a_verb_of_the_command_line():
    assert command_files() <= {command.module for command in COMMANDS}
    assert {"play", "train", "tournament", "measure", "promote", "solve", "bench", "serve"} <= {
        command.verb for command in COMMANDS
    }


def test_mancala_help_lists_every_verb_and_a_bad_verb_exits_2(capsys):
    assert cli_main(["--help"]) == 0
    shown = capsys.readouterr().out
    for command in COMMANDS:
        assert " ".join(filter(None, (command.verb, command.section))) in shown
    assert cli_main(["nosuch"]) == 2
    assert "mancala: unknown verb 'nosuch'; the verbs: adversary, bench," in capsys.readouterr().err
    assert cli_main(["measure", "--json"]) == 2
    assert "mancala: measure needs a section: perfect, weights, dqn" in capsys.readouterr().err
    assert cli_main([]) == 2


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(filter(None, c[:2])))
def test_every_command_says_prog_colon_message_and_exits_2(command, capsys):
    words = [word for word in (command.verb, command.section) if word]
    try:
        code = cli_main([*words, "--no-such-option"])
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    last = capsys.readouterr().err.splitlines()[-1]  # unrecognized, or a required name first
    assert last.startswith(f"mancala {' '.join(words)}: ")
    assert "--no-such-option" in last or "required" in last


def help_text(main, capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def test_one_flag_name_for_one_thing_and_old_spellings_still_read(capsys):
    from mancala.commands import measure_dqn

    shown = help_text(measure_dqn.main, capsys)
    assert "--models" in shown and "--models-dir" not in shown
    err = refused(measure_dqn.main, ["--games", "1", "--models-dir", "/nowhere"], capsys)
    assert "mancala measure dqn: no DQN weights at /nowhere/sungka/dqn-first.keras" in err
    shown = help_text(train.main, capsys)
    assert "--eval-games" in shown and "--eval " not in shown and "--models" in shown
    err = refused(train.main, ["--eval", "0"], capsys)
    assert "mancala train: argument --eval: must be >= 1, not 0" in err


TABLE_COMMANDS = ["bench", "bench_networks", "bench_workers", "measure_dqn", "measure_perfect"]
TABLE_COMMANDS += ["tournament", "measure_weights", "bench_teachers", "bench_loop"]


@pytest.mark.parametrize("name", TABLE_COMMANDS)
def test_every_command_that_prints_a_table_takes_json(name, capsys):
    module = importlib.import_module(f"mancala.commands.{name}")
    with pytest.raises(SystemExit) as stop:
        module.main(["--help"])
    assert stop.value.code == 0
    assert "--json" in capsys.readouterr().out


@pytest.mark.slow
def test_a_table_printed_as_json_has_its_rows(capsys):
    import json

    from mancala.commands import bench

    assert bench.main(["--tak", "3", "--json"]) == 0
    perft, table = json.loads(capsys.readouterr().out)
    assert perft["title"].startswith("Tak 3x3 perft, one process")
    rates = {row["what"]: row["measured"] for row in perft["rows"]}
    assert rates["readable rules, perft 3"].endswith(" moves/s")
    assert rates["numba engine, random games"].endswith(" plies/s")
    assert table["title"].startswith("Tak 3x3, one process")
    assert [row["position"] for row in table["rows"]] == ["10 plies", "40 plies"]
    assert all(int(row["legal moves"]) > 0 for row in table["rows"])


@pytest.mark.slow
def test_the_loop_bench_runs_the_main_job_both_ways_and_counts_what_they_made(capsys, tmp_path):
    """The bench's runs and counts, on one worker (no Ray: the two schedules on Ray
    workers are tests/learn/test_practice.py's)."""
    import json

    from mancala.commands import bench_loop

    job = ["nn1h128", "greedy", "--games", "4", "--per-pairing", "2", "--teacher", "1"]
    job += ["--exact-nodes", "0", "--labels", "--eval-games", "1", "--sample", "200"]
    job += ["--gate-openings", "1", "--gate-opponents", "greedy", "--models", str(tmp_path)]
    assert bench_loop.main(["--workers", "1", "--batches", "2", "--json", "--", *job]) == 0
    [table] = json.loads(capsys.readouterr().out)
    before, after, ratio = table["rows"]
    assert before["schedule"] == "wait for the refits" and after["schedule"] == "play during them"
    assert before["games"] == after["games"] == 8  # two batches of 4
    assert all(row["labelled positions"] > 0 and 0 < row["workers busy %"] <= 100
               for row in (before, after))  # fmt: skip
    assert ratio["positions / CPU-hour"].endswith("x")


@pytest.mark.slow
def test_the_networks_bench_times_the_tak_networks_of_a_board(capsys):
    import json

    from mancala.commands import bench_networks

    args = ["--variant", "tak", "--size", "6", "--repeat", "1", "nn1h128", "--json"]
    assert bench_networks.main(args) == 0
    [table] = json.loads(capsys.readouterr().out)
    [row] = table["rows"]
    assert row["network"] == "nn1h128" and float(row["one move (µs)"]) > 0
    assert "ratio" not in row  # Keras' one position is no Tak move
    assert bench_networks.main(["--size", "6"]) == 2
    assert "--size is not a rule of kalah" in capsys.readouterr().err


@pytest.mark.slow
def test_measure_weights_reads_a_folder_and_refuses_a_missing_one(tmp_path, capsys):
    import json

    from mancala.commands import measure_weights

    assert measure_weights.main(["--games", "2", "--json"]) == 0
    (table,) = json.loads(capsys.readouterr().out)
    rows = {row["network"]: row for row in table["rows"]}
    assert {"nn1h128", "nnx2h256"} <= set(rows)
    assert all(50 < row["keeps value %"] <= 100 for row in rows.values())
    assert table["title"].endswith("solved positions (whole-game)")
    assert measure_weights.main(["--games", "1", "--held-out", "--json"]) == 0
    (table,) = json.loads(capsys.readouterr().out)
    assert table["title"].endswith("2000 solved positions (held-out)")
    err = refused(measure_weights.main, [str(tmp_path)], capsys)
    assert f"mancala measure weights: no weights folder {tmp_path / 'kalah'}" in err


def test_options_before_names_parse(tmp_path, capsys):
    # `mancala fit`'s own example: the options between the network and the files
    missing = tmp_path / "games.jsonl"
    err = refused(fit.main, ["cnns1h128", "--epochs", "10", str(missing)], capsys)
    assert err == f"mancala fit: no such file: {missing}\n"
    # tournament.py: a player after --variant
    argv = ["1", "greedy", "luck", "--variant", "sungka", "max", "--json", "--plies", "0"]
    assert tournament.main(argv) == 0
    assert '"players": [\n  "greedy",\n  "luck",\n  "max"\n ]' in capsys.readouterr().out


# ----- sizes and numbers are checked, with the range in the message -----------------------


@pytest.mark.parametrize(
    "main, argv, message",
    [
        (
            play.main,
            ["greedy", "--houses", "0"],
            "mancala play: argument --houses: must be 1..20, not 0",
        ),
        (play.main, ["greedy", "--houses", "100"], "argument --houses: must be 1..20, not 100"),
        (play.main, ["greedy", "--seeds", "x"], "--seeds: must be a whole number 1..20, not 'x'"),
        (solve.main, ["--houses", "0"], "solve: argument --houses: must be 1..20, not 0"),
        (solve.main, ["--houses", "40"], "solve: argument --houses: must be 1..20, not 40"),
        (solve.main, ["--houses", "10", "--seeds", "5"], "kalah(10,5) is too big for the solver"),
        (solve.main, ["--tt-bits", "99"], "solve: argument --tt-bits: must be 10..30, not 99"),
        (solve.main, ["--max-seeds", "-1"], "argument --max-seeds: must be 0..28, not -1"),
        (tournament.main, ["2", "greedy", "luck", "--plies", "-1"], "must be 0..40, not -1"),
        (tournament.main, ["0", "greedy", "luck"], "argument games: must be >= 1, not 0"),
        (train.main, ["--batches", "-3"], "--batches: must be >= 1, not -3"),
        (train.main, ["--explore", "1.5"], "--explore: must be 0.0..1.0, not 1.5"),
        (train.main, ["--teacher", "21"], "--teacher: must be 1..20, not 21"),
        (train.main, ["--teacher", "az:0"], "--teacher: must be 1..100000, not 0"),
        (train.main, ["--teacher", "az:x"], "must be a whole number 1..100000, not 'x'"),
        (fit.main, ["nn1h128", "--learning-rate", "0"], "must be 1e-06..1.0, not 0"),
        (play.main, ["greedy", "--variant", "sungka", "--empty-capture"], "not a rule of sungka"),
    ],
)
def test_sizes_and_counts_out_of_range_are_refused(main, argv, message, capsys):
    assert message in refused(main, argv, capsys)


# ----- players: unknown, unfit for the game, or a person ----------------------------------


@pytest.mark.parametrize(
    "main, argv, message",
    [
        (tournament.main, ["3", "nosuchplayer", "greedy"], "unknown player 'nosuchplayer'"),
        (train.main, ["nosuch"], "mancala train: unknown player 'nosuch'"),
        (play.main, ["nobody"], "mancala play: unknown player 'nobody'"),
        (
            play.main,
            ["nn1h128", "--variant", "sungka", "--houses", "5"],
            "mancala play: nn1h128 cannot play sungka(5,7); players that can: luck, greedy,",
        ),
        (play.main, ["nn1h128", "--houses", "4"], "nn1h128 cannot play kalah(4,4)"),
        (play.main, ["dqn", "--houses", "5"], "dqn cannot play kalah(5,4)"),
        (play.main, ["nn1h128", "--empty-capture"], "cannot play kalah(6,4, empty capture)"),
        (
            tournament.main,
            ["3", "greedy", "luck", "--variant", "sungka", "--houses", "5", "nn1h128"],
            "tournament: nn1h128 cannot play sungka(5,7)",
        ),
        (tournament.main, ["1", "human", "greedy"], "`mancala play PLAYER`"),
        (
            tournament.main,
            ["1", "nnx2h256", "luck", "--variant", "tak"],
            "tournament: nnx2h256 cannot play tak(size=5, komi=0)",
        ),
        (play.main, ["cnns1h128", "--variant", "tak", "--size", "4"], "cannot play tak(size=4"),
        (
            train.main,
            ["nns1h128", "luck", "--variant", "tak"],
            "mancala train: network nns1h128 does not play tak",
        ),
    ],
)
def test_players_are_named_and_checked_before_anything_runs(main, argv, message, capsys):
    assert message in refused(main, argv, capsys)


def test_the_list_of_players_that_can_play_is_right(capsys):
    err = refused(play.main, ["nn1h128", "--variant", "sungka", "--houses", "5"], capsys)
    can = err.split("players that can: ")[1].strip().split(", ")
    assert "greedy" in can and "luck" in can
    assert "nn1h128" not in can and "dqn" not in can and "human" not in can


# ----- house labels ------------------------------------------------------------------------


def test_house_labels_are_distinct_never_q_and_read_back_at_every_size():
    for houses in range(1, MAX_HOUSES + 1):
        state = GameState.new(houses=houses, seeds=1)
        labels = [house_label(h) for h in range(houses)]
        assert len(set(labels)) == houses and "q" not in labels
        assert all(label.isprintable() and len(label) <= 2 for label in labels)
        assert [parse_move(label, state) for label in labels] == list(range(houses))


# ----- stopping: SIGTERM like Ctrl+C -------------------------------------------------------


def test_run_command_says_what_was_kept_and_exits_130_or_143(capsys):
    def stopped(error):
        def body():
            raise error

        return body

    assert run_command("demo", stopped(KeyboardInterrupt()), "the games are kept") == 130
    assert "demo: interrupted after 0 s; the games are kept" in capsys.readouterr().err
    assert run_command("demo", stopped(Terminated()), "the games are kept") == 143
    assert "demo: terminated (SIGTERM) after 0 s; the games are kept" in capsys.readouterr().err
    assert run_command("demo", stopped(ValueError("bad")), "-") == 2
    assert capsys.readouterr().err == "demo: bad\n"


def test_signals_held_deliver_sigterm_when_the_block_ends():
    written = []
    with pytest.raises(Terminated), sigterm_as_interrupt():
        with signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            written.append("the whole line")
    assert written == ["the whole line"]


def test_a_sigterm_python_swallows_still_stops_the_loop(capsys, monkeypatch):
    """The Terminated a SIGTERM raises can land in an object's __del__, where Python
    prints it and goes on (Ray's object refs met it); the loop's check stops the command."""
    rounds, swallowed = [], []
    monkeypatch.setattr(sys, "unraisablehook", swallowed.append)

    class Finalised:
        def __del__(self):
            signal.raise_signal(signal.SIGTERM)
            sum(range(1000))  # the handler runs here, inside __del__

    def body() -> int:
        for _ in range(100):
            rounds.append(1)
            Finalised()
            stop_if_asked()
        return 0

    assert run_command("prog", body, "kept") == 143
    assert [type(s.exc_value) for s in swallowed] == [Terminated]  # swallowed, then checked
    assert len(rounds) == 1 and "prog: terminated (SIGTERM) after" in capsys.readouterr().err
    stop_if_asked()  # outside a command: nothing to stop


@pytest.mark.slow
def test_sigterm_stops_random_train_with_143_and_keeps_every_game(tmp_path):
    out = tmp_path / "games.jsonl"
    command = [sys.executable, "mancala/random_train.py", "luck", "greedy", "--record-only"]
    command += ["--batches", "100", "--games", "8", "--per-pairing", "4", "--teacher", "2"]
    command += ["--exact-nodes", "0"]
    command += ["--out", str(out), "--models", str(tmp_path / "models")]
    command += ["--run", str(tmp_path / "run")]
    process = subprocess.Popen(
        command, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not (out.exists() and out.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # well into the games
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert "mancala train: terminated (SIGTERM) after" in err
    assert f"every finished game is in {out}" in err
    log = GameLog([out])
    assert len(list(log)) >= 1 and log.skipped == 0


@pytest.mark.slow
def test_ctrl_c_and_sigterm_in_play_abandon_the_game(tmp_path):
    for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        process = subprocess.Popen(
            [sys.executable, "mancala/play.py", "greedy"],
            cwd=ROOT,
            env=ENV,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        seen = ""
        while "Your move" not in seen:  # waiting for the person's move
            seen += process.stdout.read(1)
        process.send_signal(sig)
        out, err = process.communicate(timeout=30)
        assert process.returncode == code, err
        assert "Interrupted: the game is abandoned." in out and "Traceback" not in err


# ----- the terminal's streams ---------------------------------------------------------------


def test_the_prompt_goes_to_stdout_even_on_a_terminal():
    """On a terminal Python's input() writes its prompt to stderr; play.py must not."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "mancala/play.py", "greedy"],
        cwd=ROOT,
        env=ENV,
        stdin=follower,
        stdout=follower,
        stderr=subprocess.DEVNULL,
    )
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 30
    while b"Your move" not in seen and time.monotonic() < deadline:
        if select.select([leader], [], [], 0.5)[0]:
            seen += os.read(leader, 4096)
    os.write(leader, b"q\n")
    assert process.wait(timeout=30) == 0
    os.close(leader)
    assert b"Your move (a, b, c, d, e, f, or q to quit):" in seen


@pytest.mark.slow
def test_no_tensorflow_start_up_lines():
    env = {key: value for key, value in ENV.items() if key != "TF_CPP_MIN_LOG_LEVEL"}
    done = subprocess.run(
        [sys.executable, "mancala/play.py", "nn1h128"],
        cwd=ROOT,
        env=env,
        input="q\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Your move" in done.stdout
    for noise in ("oneDNN", "absl", "cuda", "cpu_feature_guard"):
        assert noise not in done.stderr, done.stderr


@pytest.mark.slow
def test_bench_teachers_scores_each_teacher_by_stage_and_refuses_a_bad_spec(
    tmp_path, monkeypatch, capsys
):
    import json

    from mancala.commands import bench_teachers
    from mancala.games.sowing.solver.database import DEFAULT_MAX_SEEDS

    # a database of 12 seeds, made here in seconds, stands for the players' 20 (minutes)
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(DEFAULT_MAX_SEEDS, 6, 12)

    argv = ["2:0", "4:20000", "--networks", "nnx1h128", "--positions", "12", "--json"]
    assert bench_teachers.main(argv) == 0
    (table,) = json.loads(capsys.readouterr().out)
    shallow, deep, student = table["rows"]
    names = [row["teacher or network"] for row in table["rows"]]
    assert names == ["minimax:2", "minimax:4+solver:n=20000", "nnx1h128"]
    assert shallow["exact %"] == 0 and deep["exact %"] > 0 and student["exact %"] == ""
    assert deep["keeps value %, end"] == 100  # the solver proves the endgame's values
    for row in (shallow, deep, student):
        assert 0 <= row["keeps value %"] <= 100 and row["seeds lost / move"] >= 0
    err = refused(bench_teachers.main, ["10:lots"], capsys)
    assert "mancala bench teachers: a teacher is DEPTH:NODES such as 10:20000, not '10:lots'" in err
    err = refused(bench_teachers.main, ["--networks", "nn9"], capsys)
    assert "mancala bench teachers: unknown network 'nn9'; the zoo: nn1h128" in err


def test_the_commands_page_shows_what_mancala_help_prints():
    page = (ROOT / "docs" / "commands.md").read_text()
    shown = "\n".join(f"    {line}" if line else "" for line in usage().splitlines())
    assert shown in page
