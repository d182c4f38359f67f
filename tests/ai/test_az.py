"""The AlphaZero-style players: the numba forward pass against Keras, PUCT's moves, the
refusals of missing, damaged and foreign weights, self-play records and the command."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from mancala.ai.az import AZ, AZNet, forward
from mancala.ai.registry import (
    available_players,
    can_play,
    check_can_play,
    describe_player,
    make_player,
)
from mancala.arena.match import play_game
from mancala.arena.parallel import Seat
from mancala.arena.records import replay
from mancala.core.paths import ROOT
from mancala.game_state import GameState
from mancala.games.sowing import engine
from mancala.games.sowing.view import mover_views
from mancala.learn.az import self_play_game, self_player
from mancala.learn.data import visit_targets
from mancala.nn_lib import policy_value
from mancala.nn_lib.base import NET_GAMES, WeightsError
from mancala.nn_lib.policy_value import PolicyValue, weights_file


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    """Untrained networks of each game, saved in a models folder of their own."""
    models = tmp_path_factory.mktemp("models")
    out = {}
    for game in NET_GAMES:
        net = PolicyValue(game, weights_file(game, models)).fresh(seed=1)
        net.save()
        out[game] = net
    return models, out


def random_positions(game: str, count: int, seed: int) -> list[GameState]:
    rng = random.Random(seed)
    positions: list[GameState] = []
    while len(positions) < count:
        state = GameState.new(game, **NET_GAMES[game])
        while not state.is_over() and len(positions) < count:
            positions.append(state)
            state = state.play(rng.choice(state.legal_moves()))
    return positions


@pytest.mark.parametrize("game", list(NET_GAMES))
def test_the_numba_forward_pass_equals_keras(nets, game):
    net = nets[1][game]
    states = random_positions(game, 200, seed=3)
    logits, values = net.predict(mover_views(states))
    assert np.abs(values).max() > 0  # an untrained net still says something
    for state, want_logits, want_value in zip(states, logits, values):
        board, player, (h, *_) = engine.to_arrays(state)
        got = np.empty(h, np.float32)
        value = forward(board, player, h, *net.arrays, got, np.empty(256, np.float32))
        np.testing.assert_allclose(got, want_logits, atol=1e-4)
        assert value == pytest.approx(want_value, abs=1e-4)


@pytest.mark.parametrize("game", list(NET_GAMES))
def test_az_and_az_net_play_whole_games_with_legal_moves(nets, game):
    net = nets[1][game]
    start = GameState.new(game, **NET_GAMES[game])
    for players in ([AZ(0, simulations=50, net=net), AZNet(net=net)],):
        record = play_game(players, start)  # an illegal move raises IllegalMove
        assert replay(record)[-1].is_over()


@pytest.mark.parametrize(
    "board, player, winning",
    [
        ((1, 0, 0, 2, 0, 1, 19, 1, 3, 0, 1, 0, 0, 20), 0, 5),
        ((0, 2, 0, 0, 0, 1, 21, 0, 1, 2, 0, 2, 0, 19), 1, 4),
    ],
)
def test_az_finds_the_only_win_even_with_an_untrained_network(nets, board, player, winning):
    state = GameState.new(board=board, player=player)
    for seed in range(3):
        az = AZ(seed, simulations=3000, net=nets[1]["kalah"])
        assert az.choose_move(state) == winning
        assert az.evaluate(state)["value"] > 0.9


def test_az_counts_visits_of_legal_moves_only(nets):
    state = GameState.new(board=(0, 3, 0, 4, 0, 1, 10, 2, 2, 2, 2, 2, 2, 18))
    seen = AZ(0, simulations=500, net=nets[1]["kalah"]).evaluate(state)["visits"]
    assert sorted(seen) == state.legal_moves() and sum(seen.values()) == 500


def test_a_missing_weights_file_names_the_command_that_makes_it(tmp_path):
    with pytest.raises(WeightsError, match="no weights file .*selfplay.py --variant sungka"):
        AZNet(path=tmp_path / "none.keras", game="sungka")


def test_a_damaged_weights_file_is_refused_with_the_command(nets, tmp_path):
    damaged = tmp_path / "az-net.keras"
    damaged.write_bytes(nets[0].joinpath("kalah", "az-net.keras").read_bytes()[:500])
    with pytest.raises(WeightsError, match="not a readable .*selfplay.py --variant kalah"):
        AZ(path=damaged)


def test_weights_of_one_game_refuse_another(nets):
    kalah_file = weights_file("kalah", nets[0])
    with pytest.raises(WeightsError, match=r"maps 194 inputs to 6 moves.*sungka\(7,7\)"):
        AZNet(path=kalah_file, game="sungka")
    player = AZ(path=kalah_file, simulations=10)
    with pytest.raises(ValueError, match="no weights for sungka.*selfplay.py --variant sungka"):
        player.choose_move(GameState.new("sungka"))
    with pytest.raises(ValueError, match=r"trained for kalah\(6,4\), not kalah\(6,3\)"):
        player.choose_move(GameState.new("kalah", seeds=3))


def test_the_registry_offers_az_only_for_games_with_weights(nets, tmp_path, monkeypatch):
    only_kalah = tmp_path / "models"
    (only_kalah / "kalah").mkdir(parents=True)
    (only_kalah / "kalah" / "az-net.keras").write_bytes(weights_file("kalah", nets[0]).read_bytes())
    monkeypatch.setattr(policy_value, "MODELS_DIR", only_kalah)
    sungka = GameState.new("sungka")
    assert can_play("az", GameState.new()) and not can_play("az", sungka)
    with pytest.raises(ValueError, match="az:100 cannot play sungka"):
        check_can_play(["az:100"], sungka)  # before the game starts
    player = make_player("az:100", seed=0)
    assert player.choose_move(GameState.new()) in range(6)
    seat = Seat.of(player, game="kalah")  # a tournament's seat: made again by its name
    assert (seat.spec, seat.layers) == ("az:100", None)
    monkeypatch.setattr(policy_value, "MODELS_DIR", tmp_path / "empty")
    assert "az-net" not in available_players() and "az" not in available_players()
    with pytest.raises(WeightsError, match="selfplay.py --variant kalah"):
        make_player("az-net")


def test_az_names_are_bounded_and_described(nets):
    assert "2,000 simulations a move" in describe_player("az:2000")
    default = AZ(net=nets[1]["kalah"]).simulations
    assert describe_player("az") == describe_player(f"az:{default}")
    with pytest.raises(ValueError, match="az simulations must be 1..1000000"):
        make_player("az:0")
    with pytest.raises(ValueError, match="az simulations must be 1..1000000"):
        make_player("az:1000001")


def test_a_self_play_record_carries_visits_that_train(nets):
    net = nets[1]["sungka"]
    start = GameState.new("sungka")
    record = self_play_game(self_player(net, 30, seed=0), start, explore_plies=4, seed=5)
    states = replay(json.loads(json.dumps(record)))
    assert len(record["visits"]) == len(states) - 1 == len(record["moves"])
    rel, policy, mask, value = visit_targets(record)
    assert np.allclose(policy.sum(1), 1) and not policy[~mask].any()
    winner = record["winner"]
    want = [0.0 if winner is None else (1.0 if s.player == winner else -1.0) for s in states[:-1]]
    assert value.tolist() == want
    i, house = next((i, m) for i, row in enumerate(mask) for m in range(7) if not row[m])
    bad = json.loads(json.dumps(record))
    bad["visits"][i][house] = 3  # a visit to an empty house
    with pytest.raises(ValueError, match="counts of legal moves"):
        visit_targets(bad)


def command(*args: str, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run(
        [sys.executable, "mancala/selfplay.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        **kwargs,
    )


def test_selfplay_refuses_bad_input(tmp_path):
    runs = ["--runs", str(tmp_path / "runs"), "--models", str(tmp_path / "models")]
    result = command("--resume", "--from", "x.jsonl", *runs)
    assert result.returncode == 2 and "selfplay: --from starts a new run" in result.stderr
    result = command("--from", str(tmp_path / "none.jsonl"), "--run", "a", *runs)
    assert result.returncode == 2 and "selfplay: --from: no file" in result.stderr
    result = command("--rounds", "1", "--run", "b", *runs)
    assert result.returncode == 2 and "start a run with --from FILE" in result.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = command("--from", str(empty), "--variant", "sungka", "--run", "c", *runs)
    assert result.returncode == 2 and "no teacher-annotated games of sungka(7,7)" in result.stderr
    result = command("--margin", "0.4", *runs)
    assert result.returncode == 2 and "--margin" in result.stderr


def test_selfplay_stops_cleanly_on_sigterm_and_resumes(nets, tmp_path):
    models = tmp_path / "models"
    net = nets[1]["kalah"]
    net.save(weights_file("kalah", models))
    where = ["--runs", str(tmp_path / "runs"), "--models", str(models), "--run", "t"]
    tiny = ["--simulations", "20", "--gate-openings", "1", "--eval", "0"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="2")
    process = subprocess.Popen(
        [sys.executable, "mancala/selfplay.py", "--games", "100000", *tiny, *where],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    games = tmp_path / "runs" / "t" / "games.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (
        not games.is_file() or games.read_text().count("\n") < 3
    ):
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143, stderr
    assert "selfplay: terminated (SIGTERM)" in stderr and "--resume --run t" in stderr
    lines = games.read_text().splitlines()
    assert len(lines) >= 3 and all("visits" in json.loads(line) for line in lines)
    result = command("--resume", "--rounds", "1", "--games", "2", *tiny, *where)
    assert result.returncode == 0, result.stderr
    assert len(games.read_text().splitlines()) == len(lines) + 2
    assert "round 1: 2/2 self-play games" in result.stdout
    curve = json.loads((tmp_path / "runs" / "t" / "curve.json").read_text())
    assert [point["round"] for point in curve] == [1]
    gates = [json.loads(line) for line in (tmp_path / "runs" / "t" / "gates.jsonl").open()]
    assert gates[-1]["round"] == 1
