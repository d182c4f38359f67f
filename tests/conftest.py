"""Shared fixtures of the test suite."""

# `./deploy/dev.sh --quick` leaves out the tests marked slow, browser, ray or docker: the
# markers are on the tests themselves (`@pytest.mark.slow`, or `pytestmark` for a whole
# file), registered in pyproject.toml; `--ci` runs every test.

import os
import subprocess
import sys

import pytest

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from mancala.core.paths import ROOT  # noqa: E402  (after the thread settings above)


@pytest.fixture
def lab_command():
    """Run a command as a user does, `python -m mancala VERB ARGS` from the project root:
    `lab_command("play", "luck", input="q\\n")` -> the finished process, output as text."""

    def run(verb: str, *args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "mancala", verb, *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            **kwargs,
        )

    return run


@pytest.fixture
def lab_main(capsys):
    """Run a command in this process, as `mancala VERB ARGS` runs it: `lab_main("selfplay",
    ...)` -> a finished process, output as text. For tests of what a command does, where
    the process itself is not what is tested (signals, start-up): it spares a start of
    Python and TensorFlow."""
    from mancala.commands import main

    def run(verb: str, *args: str) -> subprocess.CompletedProcess:
        capsys.readouterr()
        try:
            code = main([verb, *args])
        except SystemExit as stop:  # argparse refusing a line
            code = stop.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess([verb, *args], code, out, err)

    return run
