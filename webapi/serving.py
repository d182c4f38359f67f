"""Run the app under gunicorn in a child process, for the end-to-end test and load test.

`running_server()` starts the server as a user does, `mancala serve` (gunicorn with
webapi/gunicorn_config.py) on a free loopback port, waits (bounded) until /api/health
answers, yields the base URL, and stops the server (terminate, then kill) however the
block ends.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mancala.core.paths import ROOT


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url: str, timeout: float = 180.0, process: subprocess.Popen | None = None) -> None:
    """Wait until `url`/api/health answers 200; RuntimeError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/api/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the server at {url} did not answer within {timeout:.0f} s")


@contextmanager
def running_server(
    workers: int = 1, threads: int = 8, port: int | None = None, log: Path | None = None
) -> Iterator[str]:
    """`mancala serve` on 127.0.0.1 (its output appended to `log`); yields its base URL."""
    port = port or free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    command = [sys.executable, "-m", "mancala", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--workers", str(workers), "--threads", str(threads)]
    output = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=output,
        stderr=output,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process=process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
        if log:
            output.close()
