"""The game is the unit: a toy fourth game, registered here in the test alone (one
registry line, nothing changed elsewhere), plays through the match runner, the
tournament with its game pairs, the players of the registry and the web API.

The toy is Nim: a pile of stones, each turn takes 1 to 3, whoever takes the last wins.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from mancala import games
from mancala.ai.registry import make_player, players_for
from mancala.arena.match import play_games
from mancala.arena.openings import random_openings
from mancala.arena.pairs import play_pairs
from mancala.arena.tournament import run_tournament
from mancala.game_state import IllegalMove


@dataclass(frozen=True)
class Nim:
    stones: int
    player: int = 0
    game = "nim"
    num_actions = 3  # action m takes m + 1 stones

    @property
    def options(self) -> dict[str, int]:
        return {"stones": self.stones if self.player == 0 else self.stones}

    def legal_moves(self) -> list[int]:
        return list(range(min(3, self.stones)))

    def play(self, move: int) -> Nim:
        if move not in self.legal_moves():
            raise IllegalMove(f"take 1..{min(3, self.stones)} stones, not action {move!r}")
        return Nim(self.stones - move - 1, 1 - self.player)

    def is_over(self) -> bool:
        return self.stones == 0

    def winner(self) -> int | None:
        return 1 - self.player if self.is_over() else None

    def move_name(self, move: int) -> str:
        return str(move + 1)

    def parse_move(self, text: str) -> int:
        if not text.isdigit() or int(text) - 1 not in self.legal_moves():
            raise IllegalMove(f"{text!r}: take 1..{min(3, self.stones)} stones")
        return int(text) - 1

    def to_dict(self) -> dict[str, Any]:
        return {"game": "nim", "stones": self.stones, "player": self.player}

    def __str__(self) -> str:
        return f"{'o' * self.stones} ({self.stones}), player {self.player} to move"


def new_nim(stones: int = 21) -> Nim:
    if isinstance(stones, bool) or not isinstance(stones, int) or not 1 <= stones <= 1000:
        raise ValueError(f"a pile of 1..1000 stones, not {stones!r}")
    return Nim(stones)


def nim_from_dict(data: dict[str, Any]) -> Nim:
    try:
        return Nim(int(data["stones"]), int(data["player"]))
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"bad nim state: {error}") from None


def value(state: Nim) -> float:
    """Exact: the mover wins unless the pile is a multiple of 4."""
    if state.is_over():
        return -games.WIN_VALUE
    return -1.0 if state.stones % 4 == 0 else 1.0


@pytest.fixture
def nim(monkeypatch):
    line = games.Game("nim", new_nim, nim_from_dict, f"{__name__}:value")
    monkeypatch.setitem(games.GAMES, "nim", line)
    return games.new_game("nim", stones=21)


def test_the_generic_players_and_the_match_runner_play_it(nim):
    names = players_for(nim)
    assert {"luck", "greedy", "minimax", "mcts"} <= set(names)
    assert not {"exact", "max", "solver"} & set(names)  # they need sowing or a solver
    records = play_games([make_player("minimax:6", seed=1), make_player("luck", seed=2)], [nim])
    assert records[0]["variant"] == "nim" and records[0]["winner"] == 0  # 21 is a first win
    assert "scores" not in records[0]


def test_the_tournament_and_game_pairs_measure_it(nim):
    result = run_tournament(["minimax:6", "luck"], 4, nim, progress=False)
    assert result["variant"] == "nim"
    assert result["results"]["minimax:6"]["luck"]["wins"] >= 6
    assert result["pairs"]["minimax:6 vs luck"]["pairs"] == 4
    starts, moves = random_openings(nim, 10, random.Random(1), 2)
    pairs = play_pairs(make_player("minimax:6", seed=0), make_player("greedy"), starts, moves)
    assert pairs.score() >= 0.5 and pairs.margin() is None


def test_the_web_api_serves_it(nim):
    from webapi import create_app

    client = create_app({"TESTING": True, "PLAYER_SEED": 0}).test_client()
    listed = client.get("/api/variants").get_json()["variants"]
    assert "nim" in [v["name"] for v in listed]
    players = client.get("/api/players").get_json()["players"]
    assert any("nim" in p["variants"] for p in players if p["name"] == "minimax")
    state = client.post("/api/new", json={"variant": "nim", "options": {"stones": 7}})
    assert state.status_code == 200, state.get_json()
    moved = client.post("/api/play", json={"state": state.get_json()["state"], "player": "greedy"})
    assert moved.status_code == 200, moved.get_json()
    assert moved.get_json()["state"]["stones"] < 7
    illegal = client.post(
        "/api/move", json={"state": {"game": "nim", "stones": 1, "player": 0}, "move": 2}
    )
    assert illegal.status_code == 422
