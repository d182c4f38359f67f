"""The terminal game, driven through stdin like a person would type.

Whole games run in this process, stdin a text (`typed`); the exit codes as a shell sees
them need a real process.
"""

import io

import pytest


@pytest.fixture
def typed(lab_main, monkeypatch):
    """Run `mancala play ARGS` here with `text` as its standard input: the finished run."""

    def run(text: str, *args: str):
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        return lab_main("play", *args)

    return run


@pytest.mark.parametrize("second", [False, True])
def test_a_whole_game_against_greedy_through_stdin(second, typed):
    # Junk first, then every house letter and number over and over: the empty or
    # wrong ones are refused with a reason, the first legal one is played.
    text = "zz\n0\n99\n\n" + "a\nb\nc\nd\ne\nf\n1\n2\n3\n4\n5\n6\n" * 60
    args = ["greedy", "--seed", "1"] + (["--second"] if second else [])
    done = typed(text, *args)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "greedy plays" in out and "You play" in out
    assert "'zz' is not a house" in out and "no house '99'" in out and "type a house" in out
    assert out.rstrip().splitlines()[-1].startswith(("You win", "You lose", "A draw"))
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_quitting_exits_0_and_end_of_input_abandons_the_game_with_130(lab_command):
    done = lab_command("play", "luck", timeout=60, input="q\n")
    assert done.returncode == 0 and "You quit" in done.stdout
    for typed in ("", "a\n"):
        done = lab_command("play", "luck", timeout=60, input=typed)
        assert done.returncode == 130
        assert "The input ended: the game is abandoned." in done.stdout
        assert "Traceback" not in done.stderr


def test_sungka_game_to_the_end(typed):
    text = "\n".join("abcdefg1234567" * 80) + "\n"
    done = typed(text, "exact", "--variant", "sungka")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().splitlines()[-1].startswith(("You win", "You lose", "A draw"))


def test_unknown_opponent_is_a_clear_error(typed):
    done = typed("", "nobody")
    assert done.returncode == 2
    assert "unknown player 'nobody'" in done.stderr
