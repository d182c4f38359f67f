"""The JSON API through Flask's test client: every endpoint, and every kind of bad input.

A bad request must get a 4xx JSON error whose message says what is wrong, never a 500.
"""

import json
import subprocess
import sys
import threading
import time

import pytest

from mancala.ai.registry import available_players, make_player
from mancala.core.paths import ROOT
from mancala.game_state import GameState
from webapi import create_app
from webapi.analysis import solver_ready
from webapi.engine import PlayerPool, sow_frames
from webapi.ratings import load_ratings

OPENING = GameState.new().to_dict()


@pytest.fixture(scope="module")
def client():
    return create_app({"PLAYER_SEED": 0, "TESTING": True}).test_client()


def error(response, status: int, *words: str) -> str:
    """Assert `response` is a JSON error of `status` whose message holds `words`."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.is_json
    body = response.get_json()
    assert body["status"] == status and body["error"]
    for word in words:
        assert word in body["message"], body["message"]
    return body["message"]


# ----- each endpoint -------------------------------------------------------------------


def test_health(client):
    assert client.get("/api/health").get_json() == {"status": "ok"}


def test_players_lists_the_registry_without_human(client):
    players = client.get("/api/players").get_json()["players"]
    names = [p["name"] for p in players]
    assert names == [n for n in available_players(include_interactive=False) if n in names]
    assert {"luck", "greedy", "max", "exact"} <= set(names)
    assert "human" not in names
    for player in players:
        assert player["spec"].split(":")[0] == player["name"]
        assert set(player["variants"]) <= {"kalah", "sungka", "tak"} and player["variants"]
        assert player["summary"] and "{" not in player["summary"]


def test_players_say_in_words_what_they_are_and_how_strong():
    app = create_app({"TESTING": True})
    players = {p["spec"]: p for p in app.test_client().get("/api/players").get_json()["players"]}
    assert players["minimax:t=0.1"]["summary"] == "Minimax search, 0.1 s a move"
    assert "5,000 simulations a move" in players["mcts:5000"]["summary"]
    shipped = load_ratings()["ratings"]
    assert "minimax:t=0.1" in shipped and "tournament.py" in load_ratings()["command"]
    for spec, player in players.items():
        if spec in shipped:
            rated = player["rating"]
            assert rated["rating"] == shipped[spec]["rating"] and rated["games"] > 0
            assert player["level"] in ("beginner", "casual", "club", "strong", "expert")
            assert rated["game"] == "kalah(6,4)" and rated["date"]
        else:
            assert player["rating"] is None and player["level"] == "not rated"
    assert players["luck"]["level"] == "beginner"


def test_variants(client):
    body = client.get("/api/variants").get_json()
    assert [v["name"] for v in body["variants"]] == ["kalah", "sungka", "tak"]
    assert body["variants"][0]["options"] == {"houses": 6, "seeds": 4, "empty_capture": False}
    assert body["limits"]["houses"] >= 7


def test_new_game(client):
    body = client.post("/api/new", json={"variant": "sungka"}).get_json()
    assert body["state"] == GameState.new("sungka").to_dict()
    assert body["legal_moves"] == list(range(7))
    assert (body["over"], body["scores"], body["winner"]) == (False, [0, 0], None)
    small = client.post("/api/new", json={"options": {"houses": 4, "seeds": 3}}).get_json()
    assert small["state"]["board"] == [3, 3, 3, 3, 0, 3, 3, 3, 3, 0]
    assert client.post("/api/new", json={}).get_json()["state"] == OPENING


def test_human_move_returns_the_rules_answer_and_every_seed(client):
    body = client.post("/api/move", json={"state": OPENING, "move": 2}).get_json()
    after = GameState.new().play(2)
    assert body["state"] == after.to_dict()
    assert (body["move"], body["mover"], body["legal_moves"]) == (2, 0, after.legal_moves())
    frames = body["frames"]
    assert frames[0] == [4, 4, 0, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0]  # picked up
    assert frames[-1] == list(after.board)
    assert len(frames) == 5  # the pick-up, then one board per seed


def test_frames_show_a_capture_and_a_relay_then_the_final_board():
    capture = GameState.new(board=(1, 0, 4, 4, 4, 4, 0, 4, 4, 4, 4, 3, 4, 8))
    after, frames, events = sow_frames(capture, 0)
    assert after == capture.play(0) and events.capture == 4 and not events.extra_turn
    assert frames[-2] == (0, 1, 4, 4, 4, 4, 0, 4, 4, 4, 4, 3, 4, 8)  # the last seed lands
    assert frames[-1] == after.board  # then the capture
    relay = GameState.new("sungka", board=(0, 0, 0, 0, 0, 0, 3, 40, 0, 3, 0, 0, 0, 1, 0, 51))
    after, frames, events = sow_frames(relay, 6)
    assert after == relay.play(6) and frames[-1] == after.board
    assert (events.pickups, events.capture) == (2, 2)  # 9 and 13 sown on; a sunog of 1 + 1
    for before, now in zip(frames, frames[1:-1]):  # one seed or one pick-up at a time
        changed = [i for i in range(16) if before[i] != now[i]]
        assert len(changed) == 1
        assert now[changed[0]] in (before[changed[0]] + 1, 0)


def test_frames_agree_with_the_rules_over_random_games():
    rng_player = make_player("luck", seed=3)
    for variant in ("kalah", "sungka"):
        state = GameState.new(variant)
        while not state.is_over():
            move = rng_player.choose_move(state)
            after, frames, _ = sow_frames(state, move)
            assert after == state.play(move) and type(after) is GameState
            assert frames[-1] == after.board
            assert all(sum(f) <= sum(state.board) for f in frames)  # the rest are in hand
            state = after


def test_a_move_names_its_capture_and_extra_turn(client):
    body = client.post("/api/move", json={"state": OPENING, "move": 2}).get_json()
    assert body["events"]["extra_turn"] and body["events"]["words"] == ["extra turn"]
    capture = GameState.new(board=(1, 0, 4, 4, 4, 4, 0, 4, 4, 4, 4, 3, 4, 8)).to_dict()
    body = client.post("/api/move", json={"state": capture, "move": 0}).get_json()
    assert body["events"] == {
        "capture": 4,
        "extra_turn": False,
        "passes": False,
        "pickups": 0,
        "words": ["capture 4"],
    }
    plain = client.post("/api/move", json={"state": OPENING, "move": 0}).get_json()
    assert plain["events"]["words"] == [] and plain["events"]["capture"] == 0
    played = client.post("/api/play", json={"state": OPENING, "player": "greedy"}).get_json()
    assert played["events"]["words"] == ["extra turn"]  # greedy's c ends in its store


def test_events_agree_with_the_rules_over_random_games():
    """Extra turn: the same player moves next; a capture: the store gains more than sowing
    can give it (at most one seed a lap)."""
    luck = make_player("luck", seed=5)
    for variant in ("kalah", "sungka"):
        state = GameState.new(variant)
        while not state.is_over():
            move = luck.choose_move(state)
            after, _, events = sow_frames(state, move)
            again = not after.is_over() and after.player == state.player
            assert again == (events.extra_turn or events.passes)
            if variant == "kalah":
                assert not events.passes and not events.pickups
                if not after.is_over():
                    gained = (
                        after.board[state.store(state.player)]
                        - state.board[state.store(state.player)]
                    )
                    assert gained - events.capture == sum(
                        f == state.store(state.player) for f in _drops(state, move)
                    )
            state = after


def _drops(state: GameState, move: int) -> list[int]:
    """The pits the seeds of `move` fall into (Kalah: one sowing)."""
    h, me = state.houses, state.player
    pit, skip, drops = move + me * (h + 1), state.store(1 - me), []
    seeds = state.board[pit]
    while seeds:
        pit = (pit + 1) % len(state.board)
        if pit != skip:
            drops.append(pit)
            seeds -= 1
    return drops


@pytest.mark.slow
def test_analysis_values_every_legal_move(client):
    state = GameState.new().play(2)  # the first player moves again
    body = client.post("/api/analyse", json={"state": state.to_dict()}).get_json()
    analysis = body["analysis"]
    assert body["state"] == state.to_dict() and analysis["player"] == 0
    assert [m["move"] for m in analysis["moves"]] == state.legal_moves()
    assert set(analysis["best"]) <= set(state.legal_moves()) and analysis["best"]
    top = max(m["value"] for m in analysis["moves"])
    assert all(m["value"] == top for m in analysis["moves"] if m["move"] in analysis["best"])
    if solver_ready(state):  # the opening book answers: exact and instant
        assert analysis["kind"] == "exact" and analysis["depth"] is None
        values = {m["move"]: m["value"] for m in analysis["moves"]}
        assert values[5] == 8 and analysis["best"] == [5]  # Kalah(6,4): a first-player win by 8
    else:  # a fresh clone without the endgame database: minimax's estimates
        assert analysis["kind"] == "estimate" and analysis["depth"] >= 1
    assert analysis["kind"] in ("exact", "estimate")
    assert all(m["kind"] in ("exact", "estimate") for m in analysis["moves"])


@pytest.mark.slow
def test_analysis_estimates_where_the_solver_does_not_go(client):
    sungka, small = GameState.new("sungka"), GameState.new(houses=4, seeds=3).play(0)
    assert not solver_ready(sungka)
    for state in (sungka, small):
        body = client.post("/api/analyse", json={"state": state.to_dict()}).get_json()
        analysis = body["analysis"]
        if solver_ready(state):  # a Kalah(4) database cached by `mancala solve --houses 4`
            assert analysis["kind"] == "exact"
        else:
            assert analysis["kind"] == "estimate" and analysis["depth"] >= 1
        assert [m["move"] for m in analysis["moves"]] == state.legal_moves()


def test_analysis_of_a_last_move_is_the_final_margin(client):
    end = GameState.new(board=(0, 0, 0, 0, 0, 1, 20, 1, 1, 1, 0, 0, 0, 24))
    analysis = client.post("/api/analyse", json={"state": end.to_dict()}).get_json()["analysis"]
    kind = "exact" if solver_ready(end) else "estimate"
    assert analysis["moves"] == [{"move": 5, "value": -6, "kind": kind}]  # 21 to 27


def test_player_move_with_evaluation_field(client):
    body = client.post("/api/play", json={"state": OPENING, "player": "greedy"}).get_json()
    assert body["player"] == "greedy" and body["mover"] == 0
    assert body["move"] in range(6)
    assert body["state"] == GameState.new().play(body["move"]).to_dict()
    assert "evaluation" in body and isinstance(body["think_ms"], float)  # ms, measured


def test_player_evaluation_is_returned_when_the_player_has_one(client, monkeypatch):
    from mancala.ai.simple import Greedy

    monkeypatch.setattr(Greedy, "evaluate", lambda self, s: {m: 0.5 for m in s.legal_moves()})
    app = create_app({"PLAYER_SEED": 0})  # a fresh pool
    body = app.test_client().post("/api/play", json={"state": OPENING, "player": "greedy"})
    assert body.get_json()["evaluation"] == {str(m): 0.5 for m in range(6)}
    off = {"state": OPENING, "player": "greedy", "evaluate": False}
    assert app.test_client().post("/api/play", json=off).get_json()["evaluation"] is None


def test_a_whole_game_through_the_api(client):
    game = client.post("/api/new", json={"variant": "kalah"}).get_json()
    seats = ["greedy", "luck"]
    for _ in range(200):
        if game["over"]:
            break
        spec = seats[game["state"]["player"]]
        answer = client.post("/api/play", json={"state": game["state"], "player": spec})
        assert answer.status_code == 200
        game = answer.get_json()
    assert game["over"] and sum(game["scores"]) == 48
    assert game["winner"] in (0, 1, None)
    error(client.post("/api/play", json={"state": game["state"], "player": "greedy"}), 422, "over")
    error(client.post("/api/move", json={"state": game["state"], "move": 0}), 422, "over")


def test_page_and_openapi_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and b'id="board"' in page.data
    assert client.get("/static/app.js").status_code == 200
    document = client.get("/api/openapi.yaml").get_data(as_text=True)
    assert document.startswith("openapi: 3") and "/api/play:" in document
    assert "/api/analyse:" in document
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml" and b"<svg" in icon.data


# ----- bad input -----------------------------------------------------------------------

BOARD = list(GameState.new().board)


@pytest.mark.parametrize(
    "url,body,status,words",
    [
        ("/api/new", b"{not json", 400, ["not valid JSON"]),
        ("/api/new", b"", 400, ["JSON object body"]),
        ("/api/new", b"[1, 2]", 400, ["JSON object, not list"]),
        ("/api/new", b"[" * 30000, 400, ["not valid JSON"]),
        ("/api/new", b'{"variant": "chess"}', 400, ["unknown variant 'chess'"]),
        ("/api/new", b'{"variant": 3}', 400, ["unknown variant"]),
        ("/api/new", b'{"options": {"houses": 1000000000}}', 400, ["houses may be at most"]),
        ("/api/new", b'{"options": {"seeds": -1}}', 400, ["seeds must be a positive"]),
        ("/api/new", b'{"options": {"colour": 1}}', 400, ["unknown option"]),
        ("/api/new", b'{"options": []}', 400, ["options must be a JSON object"]),
        ("/api/new", b'{"board": []}', 400, ["unknown field(s): board"]),
        ("/api/move", b'{"state": {}}', 400, ["missing field(s): move"]),
        ("/api/move", b'{"move": 1}', 400, ["missing field(s): state"]),
        ("/api/play", b'{"state": {}}', 400, ["missing field(s): player"]),
        ("/api/move", {"state": {"board": [1, 2, 3]}, "move": 0}, 400, ["board has 3 pits"]),
        ("/api/move", {"state": {"board": [-1] + BOARD[1:]}, "move": 0}, 400, ["non-negative"]),
        ("/api/move", {"state": {"board": [5] + BOARD[1:]}, "move": 0}, 400, ["49 seeds"]),
        ("/api/move", {"state": {"board": "4444"}, "move": 0}, 400, ["list of seed counts"]),
        ("/api/move", {"state": {"board": BOARD, "player": 2}, "move": 0}, 400, ["player must"]),
        ("/api/move", {"state": [1], "move": 0}, 400, ["game state is a JSON object"]),
        ("/api/move", {"state": {"board": BOARD, "x": 1}, "move": 0}, 400, ["unknown key"]),
        ("/api/move", {"state": OPENING, "move": "z"}, 422, ["illegal move"]),
        ("/api/move", {"state": OPENING, "move": "a" * 41}, 400, ["move must be an action id"]),
        ("/api/move", {"state": OPENING, "move": True}, 400, ["move must be an action id"]),
        ("/api/move", {"state": OPENING, "move": 6}, 422, ["illegal move", "out of range"]),
        ("/api/move", {"state": OPENING, "move": -1}, 422, ["illegal move"]),
        (
            "/api/move",
            {"state": GameState.new().play(2).to_dict(), "move": 2},
            422,
            ["house 2 of player 0 is empty"],
        ),
        ("/api/play", {"state": OPENING, "player": "nobody"}, 400, ["unknown player 'nobody'"]),
        ("/api/play", {"state": OPENING, "player": "human"}, 400, ["unknown player 'human'"]),
        ("/api/play", {"state": OPENING, "player": 7}, 400, ["player must be a player name"]),
        ("/api/play", {"state": OPENING, "player": "../../etc/passwd"}, 400, ["looks like a path"]),
        ("/api/play", {"state": OPENING, "player": "/tmp/x.keras"}, 400, ["looks like a path"]),
        ("/api/play", {"state": OPENING, "player": "nn1h128:..\\w"}, 400, ["looks like a path"]),
        ("/api/play", {"state": OPENING, "player": "greedy;rm"}, 400, ["not a player name"]),
        ("/api/play", {"state": OPENING, "player": "luck:3"}, 400, ["takes no parameter"]),
        ("/api/play", {"state": OPENING, "player": "greedy", "evaluate": 1}, 400, ["evaluate"]),
        ("/api/analyse", b"{}", 400, ["missing field(s): state"]),
        ("/api/analyse", {"state": {"board": [1, 2, 3]}}, 400, ["board has 3 pits"]),
        ("/api/analyse", {"state": OPENING, "depth": 30}, 400, ["unknown field(s): depth"]),
        ("/api/analyse", {"state": {"board": BOARD, "options": {"houses": 99}}}, 400, ["at most"]),
        (
            "/api/analyse",
            {"state": GameState.new(board=(0,) * 6 + (24,) + (4,) * 6 + (0,)).to_dict()},
            422,
            ["the game is over"],
        ),
    ],
)
def test_bad_input_gets_a_4xx_json_error_saying_why(client, url, body, status, words):
    if isinstance(body, bytes):
        response = client.post(url, data=body, content_type="application/json")
    else:
        response = client.post(url, json=body)
    error(response, status, *words)


def test_a_huge_body_gets_413_as_json(client):
    huge = json.dumps({"state": OPENING, "move": 0, "pad": "x" * 200_000})
    error(client.post("/api/move", data=huge, content_type="application/json"), 413, "limit")


def test_unknown_urls_and_methods_are_json(client):
    error(client.get("/api/nothing"), 404)
    response = client.get("/api/new")
    error(response, 405)
    assert "POST" in response.headers["Allow"]


def test_an_unexpected_error_is_a_json_500_not_html(monkeypatch):
    app = create_app()
    monkeypatch.setattr("webapi.api.position", lambda state: 1 / 0)
    error(app.test_client().post("/api/new", json={}), 500, "unexpected")


def test_a_player_that_crashes_is_a_422_not_a_500(monkeypatch):
    from mancala.ai.simple import Greedy

    def crash(self, state):
        raise IndexError("weights for 6 houses")

    monkeypatch.setattr(Greedy, "choose_move", crash)
    response = (
        create_app().test_client().post("/api/play", json={"state": OPENING, "player": "greedy"})
    )
    error(response, 422, "cannot move in this position", "IndexError")


@pytest.mark.slow
def test_network_players_listed_by_the_registry_answer(client):
    """Every network the registry can make here plays a legal move through the API."""
    networks = [
        p for p in client.get("/api/players").get_json()["players"] if p["name"].startswith("nn")
    ]
    for player in networks[:1]:  # one load of Keras is enough for the suite
        answer = client.post("/api/play", json={"state": OPENING, "player": player["spec"]})
        assert answer.status_code == 200, answer.get_data(as_text=True)
        assert answer.get_json()["move"] in GameState.new().legal_moves()


# ----- the pool ------------------------------------------------------------------------


def test_pool_keeps_players_and_lends_each_to_one_caller_at_a_time():
    pool = PlayerPool(size=2, seed=0)
    with pool.player("greedy") as first:
        pass
    with pool.player("greedy") as again:
        assert again is first
        with pool.player("greedy") as other:  # the first is busy: another, not a wait
            assert other is not first
    with pool.player("luck"), pool.player("max"):
        pass
    with pool.player("greedy") as third:
        assert third is not first  # dropped as least recently used (size 2)
    with pytest.raises(ValueError, match="unknown player"):
        with pool.player("nobody"):
            pass
    in_use: set[int] = set()
    shared = []

    def use():
        for _ in range(50):
            with pool.player("greedy") as player:
                shared.append(id(player) in in_use)
                in_use.add(id(player))
                time.sleep(0.0005)
                in_use.discard(id(player))

    threads = [threading.Thread(target=use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(shared) == 200 and not any(shared)


@pytest.mark.slow
def test_network_players_first_made_by_threads_at_once_all_work():
    """The first network player of a process imports Keras; four threads asking for one at
    once (four requests to a fresh worker) must each get a working player."""
    script = """
import json, threading
from mancala.game_state import GameState
from webapi.engine import PlayerPool
pool, state, moves = PlayerPool(seed=0), GameState.new(), []
def ask():
    try:
        with pool.player("nn1h128") as player:
            moves.append(player.choose_move(state))
    except Exception as exc:
        moves.append(repr(exc))
threads = [threading.Thread(target=ask) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps(moves))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    moves = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(moves) == 4 and all(isinstance(m, int) for m in moves), moves


def test_az_plays_every_board_with_shipped_weights_and_a_zoo_network_refuses_others(client):
    six_five = GameState.new("kalah", seeds=5)
    body = client.post("/api/play", json={"state": six_five.to_dict(), "player": "az-net"})
    assert body.status_code == 200 and body.get_json()["move"] in six_five.legal_moves()
    refused = client.post("/api/play", json={"state": six_five.to_dict(), "player": "nn1h128"})
    assert refused.status_code == 400
    assert "built for kalah(6,4), not kalah(6,5)" in refused.get_json()["message"]
