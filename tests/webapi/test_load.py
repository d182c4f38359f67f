"""The server as the image runs it (gunicorn, 2 workers of 8 threads, 5 search slots
each), for real, under the heaviest work it admits and the work it must refuse:

- no request can ask for unbounded work: the specs that used to exhaust a worker, and
  others, on the standard board and on the largest boards the API admits (Kalah, and
  Sungka with its longest relays), four at once (within the five search slots of one
  worker: admission never refuses one). Every answer is JSON within 10 s (200, or 400
  naming the bound and the largest value allowed), no worker is killed for time, and
  each worker's peak memory stays under 2 GB;
- saturation: 16 clients on loopback addresses of their own ask searches at the API's
  caps back to back and one asks greedy moves (webapi.loadtest --saturate, bounded in
  time). The searches running at once on a worker never exceed its slots (the counters of
  GET /api/load), every answer is a move or a 503/429 JSON refusal, and no cheap request
  is refused;
- bodies over the limit, each sent whole, get their 413 JSON answer rather than a broken
  connection.

It asserts behaviour, not time (beyond the 10 s an answer may take).
"""

from __future__ import annotations

import http.client
import json
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from mancala.ai.solver import database_ready, players_database
from webapi.api import LIMITS
from webapi.loadtest import run_saturation
from webapi.serving import running_server

pytestmark = [pytest.mark.slow]

LIMIT = 64 * 1024  # the app's MAX_CONTENT_LENGTH
DRAIN = 1 << 20  # the app's DRAIN_BYTES

STANDARD = {"board": [4] * 6 + [0] + [4] * 6 + [0], "player": 0}
LARGEST = {
    "board": ([LIMITS["seeds"]] * LIMITS["houses"] + [0]) * 2,
    "player": 0,
    "options": {"houses": LIMITS["houses"], "seeds": LIMITS["seeds"]},
}
SUNGKA = LARGEST | {"variant": "sungka", "options": LARGEST["options"] | {"relay_limit": 10_000}}
ANSWER_SECONDS = 10
WORKER_PEAK_BYTES = 2 << 30  # with the default endgame database mapped


def mapped_database_bytes() -> int:
    """What the players' endgame database adds beyond the default one: a bigger one cached
    here is mapped by every worker (one copy in memory, counted in each one's peak)."""
    from mancala.game_state import GameState
    from mancala.games.sowing.solver import default_max_seeds
    from mancala.games.sowing.solver.ranking import entries

    seeds = players_database(GameState.new("kalah"))
    return entries(seeds, 6) - entries(default_max_seeds(6), 6)


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


@pytest.fixture(scope="module")
def server_log(tmp_path_factory):
    return tmp_path_factory.mktemp("server") / "log"


@pytest.fixture(scope="module")
def server(server_log):
    with running_server(workers=2, threads=8, log=server_log) as url:
        yield url


def connection(url: str) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)


def get_json(url: str, path: str) -> dict:
    client = connection(url)
    client.request("GET", path)
    answer = client.getresponse()
    assert answer.status == 200
    return json.loads(answer.read())


def test_mancala_serve_prints_the_address_and_serves(server, server_log):
    """`./deploy/dev.sh --api` runs `mancala serve`, as this file's server is started:
    gunicorn on --port, its address printed first."""
    assert get_json(server, "/api/health")
    assert f"{server}/" in server_log.read_text().splitlines()[0]


def test_no_request_can_ask_for_unbounded_work(server, server_log):
    specs = [*OVER_THE_BOUNDS, *LEGAL, "openspiel-mcts:100000", "solver"]
    cases = [(spec, board) for board in (STANDARD, LARGEST) for spec in specs]
    cases += [(spec, SUNGKA) for spec in ("minimax:100", "mcts:100000", "nmcts:1000000")]
    workers = gunicorn_workers(2)
    assert len(workers) == 2
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda c: post(server, {"state": c[1], "player": c[0]}), cases))
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
    assert "WORKER TIMEOUT" not in server_log.read_text(errors="replace")
    bound = WORKER_PEAK_BYTES + mapped_database_bytes()
    assert all(peak < bound for peak in peaks.values()), peaks


def board_moves(board: dict) -> list[int]:
    houses = len(board["board"]) // 2 - 1
    return [m for m in range(houses) if board["board"][m] > 0]


def test_saturating_searches_are_bounded_and_cheap_moves_never_refused(server):
    result = run_saturation(server, clients=16, duration=4, players=None, seed=0)
    searches, cheap = result["searches"], result["cheap"]
    assert searches["failed"] == 0, searches["errors"]  # a move, or a 503/429 refusal
    assert searches["refused"] > 0  # 16 clients back to back: more than the 10 slots
    assert sum(s["answered"] for s in searches["by_request"].values()) > 0
    assert cheap["failed"] == 0 and cheap["refused"] == 0, cheap
    assert cheap["by_request"]["greedy"]["answered"] > 0
    load = get_json(server, "/api/load")
    workers = load["workers"]
    assert len(workers) >= 2, workers  # both workers searched
    assert all(0 < w["peak"] <= load["search_slots"] for w in workers), workers
    refused = sum(w["refused_busy"] + w["refused_client"] for w in workers)
    assert refused >= searches["refused"]  # and the warm-up's
    assert load["searches_running"] == 0


@pytest.mark.parametrize("size", [LIMIT + 1, 4 * LIMIT, DRAIN])
def test_a_body_over_the_limit_gets_its_413_json_every_time(server, size):
    body = b"{" + b" " * (size - 2) + b"}"
    for _ in range(10):
        client = connection(server)
        client.request("POST", "/api/play", body, {"Content-Type": "application/json"})
        answer = client.getresponse()
        assert answer.status == 413
        assert json.loads(answer.read())["status"] == 413
        client.close()


def test_a_chunked_body_over_the_limit_is_refused_and_the_connection_serves_on(server):
    client = connection(server)
    chunks = (b" " * 8192 for _ in range(4 * LIMIT // 8192))
    client.request(
        "POST", "/api/new", chunks, {"Content-Type": "application/json"}, encode_chunked=True
    )
    answer = client.getresponse()
    assert answer.status == 413 and json.loads(answer.read())["status"] == 413
    client.request("GET", "/api/health")  # the rest was drained: the connection is whole
    assert client.getresponse().status == 200
