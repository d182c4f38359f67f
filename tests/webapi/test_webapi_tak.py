"""Tak through the JSON API: the variant listed with its options, positions with stacks
and reserves, moves by action id or PTN, computer players within the API's limits, and a
4xx JSON error (never a 500) for every malformed Tak state or move."""

import pytest

from mancala.games import new_game
from webapi import create_app

TAK4 = new_game("tak", size=4).to_dict()
ROAD = {"game": "tak", "options": {"size": 4, "komi": 0}, "tps": "x4/x4/2,2,x2/1,1,1,x 1 4"}


@pytest.fixture(scope="module")
def client():
    return create_app({"PLAYER_SEED": 0, "TESTING": True, "ANALYSIS_SECONDS": 0.3}).test_client()


def post(client, url, body, status=200):
    response = client.post(url, json=body)
    assert response.status_code == status, response.get_data(as_text=True)
    return response.get_json()


def test_variants_and_players_list_tak(client):
    variants = {v["name"]: v for v in client.get("/api/variants").get_json()["variants"]}
    assert variants["tak"]["options"] == {"size": 5, "komi": 0}
    players = client.get("/api/players").get_json()["players"]
    tak = {p["name"] for p in players if "tak" in p["variants"]}
    assert {"luck", "weighted", "greedy", "minimax", "mcts"} <= tak
    assert "max" not in tak  # a sowing heuristic


def test_a_new_tak_position_shows_stacks_reserves_and_names(client):
    body = post(client, "/api/new", {"variant": "tak", "options": {"size": 4, "komi": 2}})
    assert body["state"] == {
        "game": "tak",
        "options": {"size": 4, "komi": 2},
        "tps": "x4/x4/x4/x4 1 1",
    }
    assert body["board"] == [[]] * 16 and body["reserves"] == [[15, 0], [15, 0]]
    assert body["names"][:3] == ["a1", "b1", "c1"] and len(body["legal_moves"]) == 16
    assert (body["over"], body["scores"], body["winner"], body["result"]) == (
        False,
        [0, 0],
        None,
        None,
    )


def test_moves_by_ptn_and_id_and_a_road_ends_the_game(client):
    after = post(client, "/api/move", {"state": TAK4, "move": "a1"})
    assert (after["move"], after["move_name"], after["mover"]) == (0, "a1", 0)
    assert after["board"][0] == [[1, "F"]]  # the swap opening: a black flat
    assert "frames" not in after
    by_id = post(client, "/api/move", {"state": TAK4, "move": 0})
    assert by_id["state"] == after["state"]
    won = post(client, "/api/move", {"state": ROAD, "move": "d1"})
    assert (won["over"], won["winner"], won["result"], won["legal_moves"]) == (True, 0, "road", [])
    assert won["scores"] == [4, 2]


def test_a_whole_tak_game_against_greedy(client):
    game = post(client, "/api/new", {"variant": "tak", "options": {"size": 3}})
    plies = 0
    while not game["over"]:
        if game["state"]["tps"].split()[1] == "1":
            game = post(client, "/api/move", {"state": game["state"], "move": game["names"][-1]})
        else:
            game = post(client, "/api/play", {"state": game["state"], "player": "greedy"})
            assert game["player"] == "greedy" and game["move_name"]
        plies += 1
        assert plies < 200
    assert game["result"] in ("road", "flat", "draw")


@pytest.mark.parametrize("spec", ["minimax:t=0.05", "minimax:3", "mcts:100", "weighted"])
def test_search_players_move_within_the_limits(client, spec):
    mid = post(client, "/api/move", {"state": TAK4, "move": "b2"})
    body = post(client, "/api/play", {"state": mid["state"], "player": spec})
    assert body["move"] in mid["legal_moves"] and isinstance(body["think_ms"], float)


def test_analyse_a_tak_position(client):
    body = post(client, "/api/analyse", {"state": ROAD})
    best = body["analysis"]["best"]
    assert body["analysis"]["kind"] == "estimate"
    assert {body["names"][body["legal_moves"].index(m)] for m in best} == {"d1"}


def tak(tps, options=None):
    return {"game": "tak", "options": options or {"size": 4, "komi": 0}, "tps": tps}


@pytest.mark.parametrize(
    "url, body, status, words",
    [
        ("/api/new", {"variant": "tak", "options": {"size": 9}}, 400, ["size 3..8"]),
        ("/api/new", {"variant": "tak", "options": {"houses": 4}}, 400, ["bad options"]),
        ("/api/new", {"variant": "tak", "options": {"komi": "1"}}, 400, ["komi"]),
        ("/api/move", {"state": tak(123), "move": 0}, 400, ["TPS position is text"]),
        ("/api/move", {"state": tak("x4/x4 1 1"), "move": 0}, 400, ["3..8 rows"]),
        ("/api/move", {"state": tak("x4/x4/x4/x4 3 1"), "move": 0}, 400, ["player is 1 or 2"]),
        ("/api/move", {"state": tak("x4/x4/x4/x4 1 " + "9" * 30), "move": 0}, 400, ["move number"]),
        ("/api/move", {"state": tak("x4/x4/x4/x3,1S2 1 2"), "move": 0}, 400, ["not a square"]),
        (
            "/api/move",
            {"state": tak("x5/x5/x5/x5/1C,1C,x3 1 3", {"size": 5, "komi": 0}), "move": 0},
            400,
            ["more pieces"],
        ),
        (
            "/api/move",
            {"state": tak("x4/x4/x4/x3," + "1" * 16 + " 1 9"), "move": 0},
            400,
            ["more pieces"],
        ),
        ("/api/move", {"state": tak("x5/x5/x5/x5/x5 1 1"), "move": 0}, 400, ["not size 4"]),
        (
            "/api/move",
            {"state": tak("x4/x4/x4/x4 1 1", {"size": 4}), "move": 0},
            400,
            ["size and komi"],
        ),
        ("/api/move", {"state": {**TAK4, "board": [1]}, "move": 0}, 400, ["bad state"]),
        ("/api/move", {"state": {**TAK4, "game": "chess"}, "move": 0}, 400, ["unknown game"]),
        ("/api/move", {"state": TAK4, "move": "Sa1"}, 422, ["first ply places a flat"]),
        ("/api/move", {"state": TAK4, "move": "a9"}, 422, ["illegal move"]),
        ("/api/move", {"state": TAK4, "move": "3a1>111"}, 422, ["illegal move"]),
        ("/api/move", {"state": TAK4, "move": 10**6}, 422, ["out of range"]),
        ("/api/move", {"state": TAK4, "move": -1}, 422, ["out of range"]),
        ("/api/move", {"state": TAK4, "move": 1.5}, 400, ["action id"]),
        ("/api/play", {"state": TAK4, "player": "max"}, 400, ["does not play tak"]),
        ("/api/play", {"state": TAK4, "player": "minimax:t=5"}, 400, ["0.001..1"]),
        (
            "/api/play",
            {"state": tak("x4/x4/2,2,x2/1,1,1,1 2 4"), "player": "greedy"},
            422,
            ["over"],
        ),
        ("/api/analyse", {"state": tak("x4/x4/2,2,x2/1,1,1,1 2 4")}, 422, ["over"]),
    ],
)
def test_bad_tak_input_gets_a_4xx_json_error(client, url, body, status, words):
    answer = post(client, url, body, status)
    assert answer["status"] == status and answer["error"]
    for word in words:
        assert word in answer["message"], answer["message"]
