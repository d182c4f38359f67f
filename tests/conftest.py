"""Shared fixtures of the test suite."""

import os
import subprocess
import sys

import pytest

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from mancala.core.paths import ROOT  # noqa: E402  (after the thread settings above)


@pytest.fixture
def lab_command():
    """Run a command as a user does, `python mancala/SCRIPT ARGS` from the project root:
    `lab_command("play.py", "luck", input="q\\n")` -> the finished process, output as text."""

    def run(script: str, *args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, f"mancala/{script}", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            **kwargs,
        )

    return run
