"""Admission of searches (webapi.admission) through Flask's test client, and the shared
counters (webapi.shared) across processes: a search beyond the worker's slots is a 503,
beyond a client's share while others search a 429, both JSON with Retry-After; a player
that answers at once is never refused; a client alone is never refused for its share."""

from __future__ import annotations

import subprocess
import sys

import pytest
from limits import parse
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from mancala.core.paths import ROOT
from mancala.game_state import GameState
from webapi import create_app
from webapi.shared import SQLiteStorage

OPENING = GameState.new().to_dict()
SEARCH = {"state": OPENING, "player": "minimax:2"}  # a search, though a quick one
INSTANT = {"state": OPENING, "player": "greedy"}
ME = "127.0.0.1"  # the test client's address
OTHER = "10.0.0.7"


def make(**config):
    app = create_app({"PLAYER_SEED": 0, "TESTING": True, **config})
    return app, app.extensions["mancala_admission"], app.test_client()


def refused(response, status: int, *words: str) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == status and body["retry_after"] >= 1
    assert response.headers["Retry-After"] == str(body["retry_after"])
    for word in words:
        assert word in body["message"], body["message"]
    return body


def test_a_search_beyond_the_slots_is_a_503_and_instant_moves_still_answer():
    _, admission, client = make(SEARCH_SLOTS=1)
    with admission.search(OTHER):
        refused(client.post("/api/play", json=SEARCH), 503, "busy")
        refused(client.post("/api/analyse", json={"state": OPENING}), 503)
        assert client.post("/api/play", json=INSTANT).status_code == 200
        assert client.post("/api/new", json={}).status_code == 200
        assert client.get("/api/health").status_code == 200
    assert client.post("/api/play", json=SEARCH).status_code == 200
    (worker,) = client.get("/api/load").get_json()["workers"]
    assert worker["refused_busy"] == 2 and worker["peak"] == 1 and worker["running"] == 0
    assert worker["done"] == 2  # the held search and the last one


def test_a_client_over_its_share_is_a_429_only_while_others_search():
    _, admission, client = make(SEARCH_SLOTS=4, CLIENT_SEARCHES=1)
    with admission.search(ME):
        assert client.post("/api/play", json=SEARCH).status_code == 200  # alone: served
        with admission.search(OTHER):
            refused(client.post("/api/play", json=SEARCH), 429, "at most 1 at once")
            assert client.post("/api/play", json=INSTANT).status_code == 200
            load = client.get("/api/load").get_json()
            assert load["searches_running"] == 2 and load["clients_searching"] == 2
    assert client.post("/api/play", json=SEARCH).status_code == 200


def test_a_client_over_its_rate_is_a_429_while_others_search():
    _, admission, client = make(CLIENT_SEARCH_RATE="2 per minute")
    with admission.search(OTHER):
        for _ in range(2):
            assert client.post("/api/play", json=SEARCH).status_code == 200
        body = refused(client.post("/api/play", json=SEARCH), 429, "2 per 1 minute")
        assert body["retry_after"] <= 60
    for _ in range(3):  # alone again: the rate does not bite
        assert client.post("/api/play", json=SEARCH).status_code == 200


@pytest.mark.parametrize("trusted, status", [(0, 200), (1, 429)])
def test_forwarded_addresses_count_only_behind_trusted_proxies(trusted, status):
    _, admission, client = make(CLIENT_SEARCHES=1, TRUSTED_PROXIES=trusted)
    forwarded = {"X-Forwarded-For": "10.1.2.3"}
    with admission.search("10.1.2.3"), admission.search(OTHER):
        answer = client.post("/api/play", json=SEARCH, headers=forwarded)
        assert answer.status_code == status, answer.get_json()


def test_the_slots_are_freed_when_a_search_fails():
    _, admission, client = make(SEARCH_SLOTS=1)
    state = GameState.new(houses=4).to_dict()
    answer = client.post("/api/play", json={"state": state, "player": "nn1h128"})
    assert answer.status_code == 400  # a network of another board: refused by name
    bad = client.post("/api/play", json={"state": OPENING, "player": "minimax:x"})
    assert bad.status_code == 400
    assert client.post("/api/play", json=SEARCH).status_code == 200
    assert admission.counts["running"] == 0


def test_policy_bounds_are_checked():
    with pytest.raises(ValueError, match="at least 1"):
        make(SEARCH_SLOTS=0)


def test_the_sqlite_storage_counts_across_processes(tmp_path):
    uri = f"sqlite://{tmp_path / 'counts.sqlite3'}"
    limiter = FixedWindowRateLimiter(storage_from_string(uri))
    rate = parse("3 per minute")
    assert limiter.hit(rate, "client")
    other = (
        "import sys; import webapi.shared; from limits import parse;"
        "from limits.storage import storage_from_string as s;"
        "from limits.strategies import FixedWindowRateLimiter as F;"
        "r = F(s(sys.argv[1])); print([r.hit(parse('3 per minute'), 'client') for _ in range(2)])"
    )
    done = subprocess.run(
        [sys.executable, "-c", other, uri], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "[True, True]"
    assert not limiter.hit(rate, "client")  # the other process spent the rest
    assert limiter.hit(rate, "someone else")
    stats = limiter.get_window_stats(rate, "client")
    assert stats.remaining == 0 and stats.reset_time > 0
    storage = storage_from_string(uri)
    assert isinstance(storage, SQLiteStorage) and storage.check()
    assert storage.reset() == 2 and storage.get("anything") == 0


def test_a_storage_uri_must_name_a_file():
    with pytest.raises(ValueError, match="ABSOLUTE/PATH"):
        SQLiteStorage("sqlite://relative")
