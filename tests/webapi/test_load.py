"""The server under the heaviest load it admits, for real: gunicorn as the image runs it
(2 workers of 8 threads, 5 search slots each), 16 clients on loopback addresses of their
own asking searches at the API's caps back to back and one asking greedy moves
(webapi.loadtest --saturate, bounded in time), then bodies over the limit, each sent whole.

It asserts behaviour, not time: the searches running at once on a worker never exceed its
slots (the counters of GET /api/load), every answer is a move or a 503/429 JSON refusal,
no cheap request is refused, and every oversized body gets its 413 JSON answer rather
than a broken connection.
"""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest

from webapi.loadtest import run_saturation
from webapi.serving import running_server

LIMIT = 64 * 1024  # the app's MAX_CONTENT_LENGTH
DRAIN = 1 << 20  # the app's DRAIN_BYTES


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2, threads=8) as url:
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


def test_saturating_searches_are_bounded_and_cheap_moves_never_refused(server):
    result = run_saturation(server, clients=16, duration=6, players=None, seed=0)
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
