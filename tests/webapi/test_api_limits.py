"""No request can ask the API for unbounded work: a real gunicorn (2 workers, 8 threads)
gets the specs that used to exhaust a worker, and others, on the standard board and on
the largest boards the API admits (Kalah, and Sungka with its longest relays), several
at once (four, within the five search slots of one worker: admission never refuses one).
Every answer is JSON within 10 s
(200, or 400 naming the bound and the largest value allowed), no worker is killed for
time, and each worker's peak memory stays under 2 GB."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mancala.ai.solver import database_ready
from webapi.api import LIMITS
from webapi.serving import running_server

STANDARD = {"board": [4] * 6 + [0] + [4] * 6 + [0], "player": 0}
LARGEST = {
    "board": ([LIMITS["seeds"]] * LIMITS["houses"] + [0]) * 2,
    "player": 0,
    "options": {"houses": LIMITS["houses"], "seeds": LIMITS["seeds"]},
}
SUNGKA = LARGEST | {"variant": "sungka", "options": LARGEST["options"] | {"relay_limit": 10_000}}
ANSWER_SECONDS = 10
WORKER_PEAK_BYTES = 2 << 30

# spec -> what a 400 must say (the bound and the most allowed), or None: a legal spec
OVER_THE_BOUNDS = {
    "mcts:200000000": "mcts simulations must be 1..100000, not 200000000",
    "minimax:t=1e9": "minimax seconds must be 0.001..1, not 1000000000",
    "nmcts:1000000000000": "nmcts playouts must be 1..1000000, not 1000000000000",
    "openspiel-mcts:100000000": "openspiel-mcts simulations must be 1..100000, not 100000000",
    "minimax:101": "minimax depth must be 1..100, not 101",
    "mcts:0": "mcts simulations must be 1..100000, not 0",
}
LEGAL = ["minimax:100", "minimax:99", "minimax:t=1", "mcts:5000", "mcts:100000", "nmcts:1000000"]


def expected(spec: str, board: dict) -> tuple[int, str | None]:
    """The status and the words of the message that `spec` must get on `board`."""
    if spec in OVER_THE_BOUNDS:
        return 400, OVER_THE_BOUNDS[spec]
    if spec.startswith("openspiel-mcts") and board is LARGEST:
        return 400, "Kalah(6,4)"
    if spec == "solver" and not database_ready():
        return 400, "unknown player 'solver'"  # offered only where its database is built
    if spec == "solver" and board is LARGEST:
        return 400, "is too big for the solver"
    return 200, None


def post(url: str, body: dict) -> tuple[int, dict]:
    """POST `body` as JSON: the status and the parsed JSON answer, which must come within
    ANSWER_SECONDS (else the request fails with a timeout)."""
    request = urllib.request.Request(
        f"{url}/api/play",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=ANSWER_SECONDS) as answer:
            status, raw = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    return status, json.loads(raw)


def gunicorn_workers(count: int) -> list[int]:
    """The pids of the `count` gunicorn workers of the server this process started (waits
    up to 60 s for them to start: health answers as soon as the first one does)."""
    deadline = time.monotonic() + 60
    while True:
        children = _children(os.getpid())
        masters = [p for p in children if b"gunicorn" in Path(f"/proc/{p}/cmdline").read_bytes()]
        workers = sorted(pid for master in masters for pid in _children(master))
        if len(workers) >= count or time.monotonic() > deadline:
            return workers
        time.sleep(0.2)


def _children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{parent}\n" in status:
                found.append(int(entry.name))
    return found


def peak_bytes(pid: int) -> int:
    """The process's peak resident memory (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmHWM for {pid}")


def test_no_request_can_ask_for_unbounded_work(tmp_path):
    log = tmp_path / "log"
    specs = [*OVER_THE_BOUNDS, *LEGAL, "openspiel-mcts:100000", "solver"]
    cases = [(spec, board) for board in (STANDARD, LARGEST) for spec in specs]
    cases += [(spec, SUNGKA) for spec in ("minimax:100", "mcts:100000", "nmcts:1000000")]
    with running_server(workers=2, threads=8, log=log) as url:
        workers = gunicorn_workers(2)
        assert len(workers) == 2
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda c: post(url, {"state": c[1], "player": c[0]}), cases))
        peaks = {pid: peak_bytes(pid) for pid in workers}
        assert gunicorn_workers(2) == workers  # none was killed and replaced
    for (spec, board), (status, body) in zip(cases, answers, strict=True):
        case = f"{spec} on {len(board['board'])} pits: {status} {body.get('message')}"
        want_status, words = expected(spec, board)
        assert status == want_status, case
        if words is not None:
            assert words in body["message"], case
        else:
            assert body["player"] == spec and body["move"] in board_moves(board), case
    assert "WORKER TIMEOUT" not in log.read_text(errors="replace")
    assert all(peak < WORKER_PEAK_BYTES for peak in peaks.values()), peaks


def board_moves(board: dict) -> list[int]:
    houses = len(board["board"]) // 2 - 1
    return [m for m in range(houses) if board["board"][m] > 0]
