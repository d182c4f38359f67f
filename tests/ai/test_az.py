"""The AlphaZero-style players: the numba forward pass against Keras, PUCT's moves, the
refusals of missing, damaged and foreign weights, self-play records and the command; on
the sowing games and on Tak."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from mancala.ai.az import AZ, AZNet, load_any_game
from mancala.ai.registry import (
    available_players,
    can_play,
    check_can_play,
    describe_player,
    make_player,
    tournament_players,
)
from mancala.arena.match import GAME_PLIES, play_game, play_games
from mancala.arena.parallel import Seat
from mancala.arena.records import replay
from mancala.core.paths import ROOT
from mancala.game_state import GameState
from mancala.games import new_game
from mancala.games.sowing import engine
from mancala.games.sowing.kernel import NO_MARGIN, exact_margin, forward
from mancala.games.sowing.margin_value import SCORE_SCALE
from mancala.games.sowing.solver import Solver, relative_board, store_lead
from mancala.games.sowing.solver.ranking import binomial_table
from mancala.games.sowing.view import mover_views
from mancala.games.tak import fast
from mancala.games.tak import kernel as tak_kernel
from mancala.games.tak.state import from_tps
from mancala.learn.az import self_play_game, self_player
from mancala.learn.data import annotated_states, visit_targets
from mancala.learn.teacher import Teacher
from mancala.nn_lib import policy_value
from mancala.nn_lib.base import NET_GAMES, WeightsError
from mancala.nn_lib.meta import meta_path
from mancala.nn_lib.policy_value import (
    AZ_GAMES,
    PLANES_ONLY,
    PolicyValue,
    features,
    input_width,
    searched_targets,
    weights_file,
)


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    """Untrained networks of each game, saved in a models folder of their own."""
    models = tmp_path_factory.mktemp("models")
    out = {}
    for game in AZ_GAMES:
        net = PolicyValue(game, weights_file(game, models)).fresh(seed=1)
        net.save()
        out[game] = net
    return models, out


def random_positions(game: str, count: int, seed: int, **options) -> list[GameState]:
    rng = random.Random(seed)
    positions: list[GameState] = []
    while len(positions) < count:
        state = new_game(game, **(AZ_GAMES[game] | options))
        while not state.is_over() and len(positions) < count:
            positions.append(state)
            state = state.play(rng.choice(state.legal_moves()))
    return positions


@pytest.mark.slow
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
@pytest.mark.parametrize("endgame", [False, True])
def test_az_finds_the_only_win_even_with_an_untrained_network(
    nets, board, player, winning, endgame
):
    state = GameState.new(board=board, player=player)
    for seed in range(3):
        az = AZ(seed, simulations=3000, net=nets[1]["kalah"], endgame=endgame)
        assert az.choose_move(state) == winning
        assert az.evaluate(state)["value"] > 0.5  # a win by 2 seeds: tanh(2 / 2 seeds)


def test_az_counts_visits_of_legal_moves_only(nets):
    state = GameState.new(board=(0, 3, 0, 4, 0, 1, 10, 2, 2, 2, 2, 2, 2, 18))
    seen = AZ(0, simulations=500, net=nets[1]["kalah"]).evaluate(state)["visits"]
    assert sorted(seen) == state.legal_moves() and sum(seen.values()) == 500


def test_a_missing_weights_file_names_the_command_that_makes_it(tmp_path):
    with pytest.raises(WeightsError, match="no weights file .*mancala selfplay --variant sungka"):
        AZNet(path=tmp_path / "none.keras", game="sungka")


def test_a_damaged_weights_file_is_refused_with_the_command(nets, tmp_path):
    damaged = tmp_path / "az-net.keras"
    damaged.write_bytes(nets[0].joinpath("kalah", "az-net.keras").read_bytes()[:500])
    with pytest.raises(WeightsError, match="not a readable .*mancala selfplay --variant kalah"):
        AZ(path=damaged)


def test_weights_of_one_game_refuse_another(nets):
    kalah_file = weights_file("kalah", nets[0])
    with pytest.raises(WeightsError, match=r"maps 194 inputs to 6 moves.*sungka\(7,7\)"):
        AZNet(path=kalah_file, game="sungka")
    player = AZ(path=kalah_file, simulations=10)
    with pytest.raises(
        ValueError, match="no weights for sungka.*mancala selfplay --variant sungka"
    ):
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
    seat = Seat.of(player, start=GameState.new())  # a tournament's seat: made again by its name
    assert (seat.spec, seat.layers) == ("az:100", None)
    monkeypatch.setattr(policy_value, "MODELS_DIR", tmp_path / "empty")
    assert "az-net" not in available_players() and "az" not in available_players()
    with pytest.raises(WeightsError, match="mancala selfplay --variant kalah"):
        make_player("az-net")


def test_az_names_are_bounded_and_described(nets):
    assert "2,000 simulations a move" in describe_player("az:2000")
    default = AZ(net=nets[1]["kalah"]).simulations
    assert describe_player("az") == describe_player(f"az:{default}")
    with pytest.raises(ValueError, match="az simulations must be 1..1000000"):
        make_player("az:0")
    with pytest.raises(ValueError, match="az simulations must be 1..1000000"):
        make_player("az:1000001")


def test_az_t_searches_for_its_time_a_move(nets):
    assert "0.05 s a move" in describe_player("az:t=0.05")
    player = make_player("az:t=0.05", seed=0)
    assert player.seconds == 0.05 and player.budget("kalah") > 1000  # not cut by a count
    state = GameState.new()
    visits, *_ = player.search(state)
    assert 0 < visits.sum() < player.budget("kalah")  # stopped by its time, not a count
    with pytest.raises(ValueError, match="az seconds must be 0.001..3600, not 0"):
        make_player("az:t=0")
    with pytest.raises(ValueError, match="az takes SIMULATIONS .* or t=SECONDS"):
        make_player("az:t=x")


SMALL_DB = 8  # seeds: an endgame database of Kalah(6) built in a moment


@pytest.fixture(scope="module")
def small_solver():
    return Solver(6, False, SMALL_DB, cache_dir=None, progress=False, tt_bits=16)


def exact(solver: Solver, state: GameState) -> int:
    """The final margin for the mover of `state` under perfect play."""
    board, player, (h, *_) = engine.to_arrays(state)
    if state.is_over():
        diff = engine.score_diff(board, h)
        return diff if player == 0 else -diff
    return store_lead(state) + solver.value(relative_board(state))


def exact_move_values(solver: Solver, state: GameState) -> dict[int, int]:
    """The final margin of each legal move for the mover of `state`, with perfect play."""
    values = {}
    for move in state.legal_moves():
        after = state.play(move)
        value = exact(solver, after)
        values[move] = value if after.player == state.player or after.is_over() else -value
    return values


def late_positions(count: int, most_seeds: int, seed: int) -> list[GameState]:
    """Kalah(6,4) positions of random games with at most `most_seeds` seeds in the houses."""
    return [
        s
        for s in random_positions("kalah", 40 * count, seed)
        if sum(s.board[:6] + s.board[7:13]) <= most_seeds
    ][:count]


def test_the_endgame_margin_in_the_kernel_is_the_solvers(small_solver):
    table = (small_solver.db, binomial_table(SMALL_DB, 12), SMALL_DB)
    positions = late_positions(60, SMALL_DB + 4, seed=5)
    known = 0
    for state in positions:
        board, player, (h, kalah, *_) = engine.to_arrays(state)
        got = exact_margin(board, player, h, kalah, table, np.empty(2 * h, np.int64))
        if sum(relative_board(state)) > SMALL_DB and not state.is_over():
            assert got == NO_MARGIN
        else:
            assert got == exact(small_solver, state)
            known += 1
    assert 10 < known < len(positions)


def test_az_plays_a_best_margin_where_its_search_solves_every_move(nets, small_solver):
    positions = late_positions(20, 6, seed=7)
    assert len(positions) == 20
    az = AZ(0, simulations=20_000, net=nets[1]["kalah"], endgame=False)  # untrained
    for state in positions:
        values = exact_move_values(small_solver, state)
        assert values[az.choose_move(state)] == max(values.values())


def test_a_self_play_record_carries_visits_that_train(nets):
    net = nets[1]["sungka"]
    start = GameState.new("sungka")
    record = self_play_game(self_player(net, 30, seed=0), start, explore_plies=4, seed=5)
    states = replay(json.loads(json.dumps(record)))
    assert len(record["visits"]) == len(states) - 1 == len(record["moves"])
    rel, policy, mask, value = visit_targets(record, 16.0)  # the values' scale: 16 seeds
    assert np.allclose(policy.sum(1), 1) and not policy[~mask].any()
    final = states[-1].board  # Sungka(7,7): houses 0-6, store 7, houses 8-14, store 15
    margin = sum(final[:8]) - sum(final[8:])
    winner = record["winner"]
    assert winner == (0 if margin > 0 else 1 if margin < 0 else None)
    for state, got in zip(states[:-1], value):
        mine = margin if state.player == 0 else -margin
        assert got == pytest.approx(np.tanh(mine / 16.0))
        assert np.sign(got) == (0 if winner is None else 1 if state.player == winner else -1)
    i, house = next((i, m) for i, row in enumerate(mask) for m in range(7) if not row[m])
    bad = json.loads(json.dumps(record))
    bad["visits"][i][house] = 3  # a visit to an empty house
    with pytest.raises(ValueError, match="counts of legal moves"):
        visit_targets(bad, 16.0)


@pytest.mark.slow
def test_selfplay_refuses_bad_input(tmp_path, lab_main):
    runs = ["--runs", str(tmp_path / "runs"), "--models", str(tmp_path / "models")]
    result = lab_main("selfplay", "--resume", "--from", "x.jsonl", *runs)
    assert result.returncode == 2 and "mancala selfplay: --from starts a new run" in result.stderr
    result = lab_main("selfplay", "--from", str(tmp_path / "none.jsonl"), "--run", "a", *runs)
    assert result.returncode == 2 and "mancala selfplay: --from: no file" in result.stderr
    result = lab_main("selfplay", "--rounds", "1", "--run", "b", *runs)
    assert result.returncode == 2 and "start a run with --from FILE" in result.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = lab_main("selfplay", "--from", str(empty), "--variant", "sungka", "--run", "c", *runs)
    assert result.returncode == 2 and "no teacher-annotated games of sungka(7,7)" in result.stderr
    result = lab_main("selfplay", "--margin", "0.4", *runs)
    assert result.returncode == 2 and "--margin" in result.stderr
    result = lab_main("selfplay", "--value-scale", "0", *runs)
    assert result.returncode == 2 and "--value-scale: must be 0.5..100.0, not 0" in result.stderr


@pytest.mark.slow
def test_selfplay_stops_cleanly_on_sigterm_and_resumes(nets, tmp_path, lab_main):
    models = tmp_path / "models"
    net = nets[1]["kalah"]
    net.save(weights_file("kalah", models))
    where = ["--runs", str(tmp_path / "runs"), "--models", str(models), "--run", "t"]
    tiny = ["--simulations", "20", "--gate-openings", "1", "--eval", "0"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="2")
    process = subprocess.Popen(
        [sys.executable, "-m", "mancala", "selfplay", "--games", "100000", *tiny, *where],
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
    assert "mancala selfplay: terminated (SIGTERM)" in stderr and "--resume --run t" in stderr
    lines = games.read_text().splitlines()
    assert len(lines) >= 3 and all("visits" in json.loads(line) for line in lines)
    result = lab_main("selfplay", "--resume", "--rounds", "1", "--games", "2", *tiny, *where)
    assert result.returncode == 0, result.stderr
    assert len(games.read_text().splitlines()) == len(lines) + 2
    assert "round 1: 2/2 self-play games" in result.stdout
    curve = json.loads((tmp_path / "runs" / "t" / "curve.json").read_text())
    assert [point["round"] for point in curve] == [1]
    gates = [json.loads(line) for line in (tmp_path / "runs" / "t" / "gates.jsonl").open()]
    assert gates[-1]["round"] == 1
    first = tmp_path / "runs" / "t" / "generations" / "az-net-kalah-g0.keras"
    begun = weights_file("kalah", models)  # one gate pair: its error unbounded, no promotion
    assert first.read_bytes() == begun.read_bytes()  # generation 0: the weights it began from


def test_az_plays_a_move_of_the_proved_value_without_searching(nets, small_solver):
    positions = late_positions(30, 12, seed=11)
    assert len(positions) == 30
    untrained = nets[1]["kalah"]
    proving = AZ(0, simulations=1, net=untrained, endgame=False, solver=small_solver)
    guessing = AZ(0, simulations=1, net=untrained, endgame=False, prove=False)
    wrong = 0
    for state in positions:
        values = exact_move_values(small_solver, state)
        assert values[proving.choose_move(state)] == max(values.values())
        wrong += values[guessing.choose_move(state)] < max(values.values())
    assert wrong > 0  # one simulation of an untrained network is not enough: the proof is


def test_az_plays_the_opening_book_where_it_holds_the_position(nets, monkeypatch):
    from mancala.ai import az as az_module
    from mancala.games.sowing.solver.book import book_key

    start = GameState.new()
    book = {book_key(start): {"value": 0, "best": [0]}}  # a move the network would not pick
    monkeypatch.setattr(az_module, "shared_book", lambda state: book)
    untrained = nets[1]["kalah"]
    searching = AZ(0, simulations=50, net=untrained, endgame=False, prove=False)
    assert searching.choose_move(start) != 0  # the book is the solver's help: not az-solo's
    assert AZ(0, simulations=50, net=untrained, endgame=False).choose_move(start) == 0


# ----- Tak: its own kernel on the Tak engine, one prior a legal action id ---------------

TAK = "tak"
ROAD_IN_ONE = "2,2,2,x2/x5/x5/x5/1,1,1,1,x 1 5"  # white plays e1 (or Ce1) and wins


@pytest.mark.parametrize("size", [5, 6])
def test_the_tak_kernel_forward_pass_equals_keras(nets, tmp_path, size):
    net = nets[1][TAK]
    if size != 5:  # another board: its own weights, its own planes and action ids
        net = PolicyValue(TAK, tmp_path / "az-net.keras", {"size": size}).fresh(seed=1)
    assert (
        net.arrays[0].shape[0]
        == input_width(TAK, {"size": size})
        > len(features([new_game(TAK, size=size)])[0])
    )
    assert_kernel_equals_keras(net, size)


def test_tak_weights_saved_before_the_feature_planes_read_the_planes_alone():
    net = PolicyValue(TAK).load()  # the shipped 5x5 file, of input encoding 1
    assert net.ENCODING == PLANES_ONLY
    assert net.arrays[0].shape[0] == input_width(TAK, None, PLANES_ONLY) == 500
    assert_kernel_equals_keras(net, 5)


def assert_kernel_equals_keras(net, size):
    states = random_positions(TAK, 120, seed=4, size=size)
    logits, values = net.predict(features(states))
    weights = tak_kernel.weights(net.arrays, new_game(TAK, size=size))
    assert np.abs(values).max() > 0
    for state, want_logits, want_value in zip(states, logits, values):
        meta, colours = fast.to_arrays(state)
        moves = np.array(state.legal_moves(), np.int64)
        got = np.empty(len(moves), np.float32)
        value = tak_kernel.forward(
            meta, colours, moves, len(moves), weights, got, np.empty(256, np.float32)
        )
        np.testing.assert_allclose(got, want_logits[moves], atol=1e-4)
        assert value == pytest.approx(want_value, abs=1e-4)


@pytest.mark.slow
def test_tak_az_and_az_net_play_legal_moves_only(nets):
    net = nets[1][TAK]
    start = new_game(TAK, size=5)
    players = [AZ(0, simulations=60, net=net), AZNet(net=net)]
    for seats in (players, players[::-1]):  # an illegal move raises IllegalMove
        (record,) = play_games(seats, [start], max_plies=GAME_PLIES)
        assert len(record["moves"]) > 10
    visits = players[0].evaluate(start.play(6))["visits"]
    assert sorted(visits) == start.play(6).legal_moves() and sum(visits.values()) == 60


def test_tak_az_finds_a_road_in_one_with_an_untrained_network(nets):
    state = from_tps(ROAD_IN_ONE)
    winning = {state.parse_move("e1"), state.parse_move("Ce1")}
    for seed in range(3):
        az = AZ(seed, simulations=2000, net=nets[1][TAK])
        assert az.choose_move(state) in winning
        assert az.evaluate(state)["value"] == 1.0


def test_a_search_of_one_simulation_has_room_for_a_root_of_hundreds_of_moves(tmp_path):
    stacks = "x6/x,111111,x2,111111,x/x6/x6/x,111111,x2,111111,x/x6 1 20"  # four 6-high stacks
    state = from_tps(stacks)
    assert len(state.legal_moves()) > 2 * tak_kernel.EDGES_PER_NODE  # more than 2 nodes' room
    net = PolicyValue(TAK, tmp_path / "az-net.keras", {"size": 6}).fresh(seed=1)
    for player in (AZ(0, simulations=1, net=net), make_player("mcts:1", seed=0)):
        assert player.choose_move(state) in state.legal_moves()


def test_tak_az_keeps_its_deadline(nets):
    az = AZ(0, seconds=0.05, net=nets[1][TAK])
    assert az.budget(TAK) > 5000  # the time stops it, not a count
    state = from_tps("x5/x2,2S,x2/x2,121,x2/x5/x5 1 4")
    visits, *_ = az.search(state)
    assert 0 < visits.sum() < az.budget(TAK)  # stopped by its time, not a count


def test_tak_weights_are_refused_for_another_game_and_back(nets):
    kalah_file, tak_file = weights_file("kalah", nets[0]), weights_file(TAK, nets[0])
    with pytest.raises(WeightsError, match=r"maps 194 inputs to 6 moves.*tak\(size=5, komi=0\)"):
        AZ(path=kalah_file, game=TAK)
    with pytest.raises(WeightsError, match=r"trained for tak\(size=5, komi=0\), not kalah\(6,4\)"):
        AZNet(path=tak_file, game="kalah")
    player = AZ(path=tak_file, game=TAK, simulations=10)
    with pytest.raises(ValueError, match="no weights for kalah"):
        player.choose_move(GameState.new())
    with pytest.raises(ValueError, match=r"trained for tak\(size=5, komi=0\), not tak\(size=4"):
        player.choose_move(new_game(TAK, size=4))
    with pytest.raises(ValueError, match=r"az cannot play tak\(size=4, komi=0\)"):
        check_can_play(["az"], new_game(TAK, size=4))  # before the game starts


def test_a_missing_or_damaged_tak_file_names_the_command_that_makes_it(nets, tmp_path):
    make = "mancala selfplay --variant tak --teacher-games"
    with pytest.raises(WeightsError, match=f"no weights file .*{make}"):
        AZ(path=tmp_path / "none.keras", game=TAK)
    damaged = tmp_path / "az-net.keras"
    damaged.write_bytes(weights_file(TAK, nets[0]).read_bytes()[:700])
    with pytest.raises(WeightsError, match=f"not a readable .*{make}"):
        AZNet(path=damaged, game=TAK)


def test_a_tak_self_play_record_keeps_visits_of_legal_moves_that_train(nets):
    start = new_game(TAK, size=5)
    record = self_play_game(self_player(nets[1][TAK], 20, seed=0), start, 4, seed=2)
    states = replay(json.loads(json.dumps(record)))
    assert [len(row) for row in record["visits"]] == [len(s.legal_moves()) for s in states[:-1]]
    compact, policy, mask, value = visit_targets(record, 1.0)
    assert compact.shape == (len(states) - 1, 500) and policy.shape[1] == 3175
    assert np.allclose(policy.sum(1), 1) and not policy[~mask].any()
    winner = record["winner"]
    for state, got in zip(states[:-1], value):
        assert got == (0 if winner is None else 1 if state.player == winner else -1)
    bad = json.loads(json.dumps(record))
    bad["visits"][3].append(1)  # one count more than the position has moves
    with pytest.raises(ValueError, match="counts of legal moves"):
        visit_targets(bad, 1.0)


@pytest.mark.slow
def test_selfplay_makes_tak_weights_from_its_alpha_beta_then_self_play(tmp_path, lab_main):
    models = tmp_path / "models"
    where = ["--runs", str(tmp_path / "runs"), "--models", str(models)]
    result = lab_main("selfplay", "--variant", "tak", "--rounds", "1", "--run", "a", *where)
    assert result.returncode == 2 and "start a run with --teacher-games N" in result.stderr
    result = lab_main("selfplay", "--teacher-games", "2", "--run", "b", *where)
    assert (
        result.returncode == 2
        and "--teacher-games plays the game's own alpha-beta (tak)" in result.stderr
    )
    tiny = ["--simulations", "10", "--games", "1", "--gate-openings", "1", "--eval", "0"]
    result = lab_main(
        "selfplay", "--variant", "tak", "--teacher-games", "2", "--rounds", "1",
        *tiny, "--run", "c", *where,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "teacher: 2/2 games of its alpha-beta" in result.stdout
    assert "round 1: 1/1 self-play games" in result.stdout
    gates = [json.loads(line) for line in (tmp_path / "runs" / "c" / "gates.jsonl").open()]
    assert [g["round"] for g in gates] == [0, 1] and gates[0]["promoted"]
    net = PolicyValue(TAK, weights_file(TAK, models)).load()
    start = new_game(TAK, size=5)
    assert AZNet(net=net).choose_move(start) in start.legal_moves()


@pytest.mark.slow
def test_selfplay_learns_tak_from_the_main_jobs_annotated_games(tmp_path, lab_main):
    start = new_game(TAK, size=3)
    teacher = Teacher(2, game=TAK)
    records = [
        teacher.annotate(play_game([make_player(n, seed=k) for n in pair], start, seed=k))
        for k, pair in enumerate([("greedy", "luck"), ("luck", "minimax:1")])
    ]
    examples, policy, mask, value = searched_targets(
        annotated_states(records[0]), records[0]["values"]
    )
    states = replay(records[0])[:-1]
    assert len(examples) == len(policy) == len(value) == len(states)
    for state, row, p, legal, v in zip(states, records[0]["values"], policy, mask, value):
        assert legal.sum() == len(row) and p.sum() == pytest.approx(1.0) and not p[~legal].any()
        assert state.legal_moves()[int(np.argmax(row))] == int(np.argmax(p))
        assert v == pytest.approx(np.tanh(np.clip(max(row), -10, 10) / 3))
    short = json.loads(json.dumps(records[0]))
    short["values"][1].pop()
    with pytest.raises(ValueError, match="one number a legal move"):
        searched_targets(annotated_states(short), short["values"])
    games = tmp_path / "games.jsonl"
    games.write_text("".join(json.dumps(r) + "\n" for r in records))
    models = tmp_path / "models"
    result = lab_main(
        "selfplay", "--variant", "tak", "--size", "3", "--from", str(games), "--rounds", "0",
        "--epochs", "1", "--eval", "0", "--runs", str(tmp_path / "runs"),
        "--models", str(models), "--run", "t",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    net = load_any_game(weights_file(TAK, models, {"size": 3}))
    assert json.loads(meta_path(net.path).read_text())["teacher"] == "minimax:2"
    assert AZNet(net=net).choose_move(start) in start.legal_moves()


@pytest.mark.parametrize("scale, weight", [(2.0, 0.0), (16.0, 0.0), (2.0, 0.25)])
def test_az_values_exact_margins_on_its_networks_scale(tmp_path, scale, weight):
    net = PolicyValue("kalah", tmp_path / "az-net.keras").fresh(seed=1)
    net.value_scale, net.score_weight = scale, weight
    state = GameState.new(board=(0, 0, 0, 0, 0, 1, 20, 1, 0, 0, 0, 0, 0, 26), player=0)
    _, means, _, margins, _ = AZ(0, simulations=50, net=net, endgame=False).search(state)
    assert margins[5] == 21 - 27  # the only move ends the game
    want = (1 - weight) * np.tanh(-6 / scale) + weight * np.tanh(-6 / SCORE_SCALE)
    assert means[5] == pytest.approx(want)
    assert net.seeds(means[5]) == pytest.approx(-6)


def test_a_network_keeps_the_value_scale_it_learnt(tmp_path):
    path = tmp_path / "sungka" / "az-net.keras"
    net = PolicyValue("sungka", path).fresh(seed=1)
    net.value_scale = 16.0
    net.save()
    assert json.loads(meta_path(path).read_text())["value_scale"] == 16.0
    assert PolicyValue("sungka", path).load().value_scale == 16.0
    meta = json.loads(meta_path(path).read_text())
    del meta["value_scale"]  # weights saved before the scale was written down
    meta_path(path).write_text(json.dumps(meta))
    assert PolicyValue("sungka", path).load().value_scale == policy_value.VALUE_SCALE == 2.0
    meta_path(path).write_text(json.dumps({**meta, "value_scale": "wide"}))
    with pytest.raises(WeightsError, match="value_scale .* is not a number of seeds"):
        PolicyValue("sungka", path).load()
    assert PolicyValue("sungka", path).fresh(seed=1).score_weight == 0.0
    net.score_weight = 0.25
    net.save()
    assert PolicyValue("sungka", path).load().score_weight == 0.25
    meta = json.loads(meta_path(path).read_text())
    meta_path(path).write_text(json.dumps({**meta, "score_weight": 1.5}))
    with pytest.raises(WeightsError, match="score_weight .* is not in 0..1"):
        PolicyValue("sungka", path).load()


@pytest.mark.slow
def test_selfplay_pretrains_a_network_on_the_value_scale_asked(tmp_path, lab_main):
    models = tmp_path / "models"
    sample = ROOT / "training" / "sample_kalah.jsonl"
    result = lab_main(
        "selfplay", "--from", str(sample), "--rounds", "0", "--epochs", "1", "--eval", "0",
        "--value-scale", "6", "--runs", str(tmp_path / "runs"), "--models", str(models),
        "--run", "p",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    net = PolicyValue("kalah", weights_file("kalah", models)).load()
    assert net.value_scale == 6.0
    assert json.loads(meta_path(net.path).read_text())["teacher"].startswith("minimax:")


def test_az_file_plays_the_weights_of_a_file_and_only_from_the_command_line(nets):
    models, by_game = nets
    sungka = weights_file("sungka", models)
    player = make_player(f"az-file:{sungka},n=30", seed=0)
    assert list(player.networks) == ["sungka"] and player.simulations == 30
    record = play_game([player, make_player("greedy", seed=1)], GameState.new("sungka"))
    assert replay(record)[-1].is_over()
    assert make_player(f"az-file:{sungka},t=0.5").seconds == 0.5
    assert "az-file" not in available_players(include_interactive=False)  # nor the web
    for spec, message in [
        ("az-file:", "needs the weights' path"),
        (f"az-file:{sungka},t=0", "t=SECONDS"),
        (f"az-file:{sungka},n=many", "n=SIMULATIONS"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_player(spec)
    with pytest.raises(WeightsError, match="no weights file"):
        make_player(f"az-file:{models}/none.keras")
    not_a_network = models / "plain.keras"
    not_a_network.write_bytes(b"not a keras file")
    with pytest.raises(WeightsError, match="is no policy-value network of any game"):
        make_player(f"az-file:{not_a_network}")


def test_az_solo_is_az_without_the_solvers_help():
    solo, helped = make_player("az-solo:50", seed=0), make_player("az:50", seed=0)
    assert (solo.endgame, solo.prove) == (False, False)
    assert (helped.endgame, helped.prove) == (True, True)
    assert "without the solver's help" in describe_player("az-solo:t=0.1")
    state = GameState.new("kalah", board=(0, 0, 0, 0, 0, 1, 20, 1, 0, 0, 0, 0, 0, 26))
    assert solo.proof_solver(state) is None and solo.choose_move(state) == 5
    with pytest.raises(ValueError, match="simulations"):
        make_player("az-solo:0")


def test_another_board_has_weights_of_its_own_begun_from_the_default_boards(
    nets, tmp_path, monkeypatch, lab_main
):
    models = tmp_path / "models"
    nets[1]["kalah"].save(weights_file("kalah", models))
    nets[1]["sungka"].save(weights_file("sungka", models))
    where = ["--runs", str(tmp_path / "runs"), "--models", str(models)]
    tiny = ["--rounds", "0", "--eval", "0"]
    result = lab_main(
        "selfplay", "--seeds", "5", "--init", str(weights_file("sungka", models)), "--run", "s",
        *tiny, *where,
    )  # fmt: skip
    assert result.returncode == 2 and "--init" in result.stderr and "not kalah" in result.stderr
    result = lab_main("selfplay", "--init", str(tmp_path / "none.keras"), "--run", "n", *where)
    assert result.returncode == 2 and "--init: no weights file" in result.stderr
    assert not (tmp_path / "runs" / "n").exists()  # refused before the run is made
    init = ["--seeds", "5", "--init", str(weights_file("kalah", models))]
    result = lab_main("selfplay", *init, "--run", "k", *tiny, *where)
    assert result.returncode == 0, result.stderr
    board = weights_file("kalah", models, {"seeds": 5})
    assert board.parent.name == "kalah-seeds5" and board.is_file()
    five = PolicyValue("kalah", board, {"seeds": 5}).load()
    assert five.board == "kalah-seeds5" and five.arrays[0].shape == nets[1]["kalah"].arrays[0].shape
    with pytest.raises(WeightsError, match=r"trained for kalah\(6,5\), not kalah\(6,4\)"):
        PolicyValue("kalah", board).load()  # same shapes, another board: refused
    assert list(AZ(net=load_any_game(board), simulations=5).networks) == ["kalah-seeds5"]

    monkeypatch.setattr(policy_value, "MODELS_DIR", models)
    boards = policy_value.trained_games()
    assert {"variant": "kalah", "houses": 6, "seeds": 5, "empty_capture": False} in boards
    six_five, six_four = GameState.new("kalah", seeds=5), GameState.new("kalah")
    assert can_play("az", six_five) and not can_play("az", GameState.new("kalah", seeds=3))
    defaults = tournament_players("kalah", six_five)  # a zoo network plays kalah(6,4) alone
    assert "az:1000" in defaults and not {"nn1h128", "openspiel-mcts:5000"} & set(defaults)
    player = make_player("az:20", seed=0)
    record = play_game([player, make_player("greedy", seed=1)], six_five)
    assert replay(record)[-1].is_over()
    assert player.net_for(six_five) is not player.net_for(six_four)
    with pytest.raises(ValueError, match=r"no weights for kalah\(6,3\).*--seeds 3 --init"):
        player.choose_move(GameState.new("kalah", seeds=3))


@pytest.mark.slow
def test_a_stopped_tak_pretraining_goes_on_from_its_kept_teacher_games(
    tmp_path, monkeypatch, lab_main
):
    from mancala.learn import teacher as learn_teacher

    played, real = [], learn_teacher.SelfTaught.play
    games, stop_after = 12, 7

    def stopped_once(self, start, seed):
        if len(played) == stop_after and not stopped:
            stopped.append(seed)
            raise KeyboardInterrupt  # Ctrl+C in the middle of the teacher's games
        played.append(seed)
        return real(self, start, seed)

    stopped: list[int] = []
    monkeypatch.setattr(learn_teacher.SelfTaught, "play", stopped_once)
    where = ["--variant", "tak", "--size", "3", "--runs", str(tmp_path / "runs"), "--run", "t"]
    where += ["--models", str(tmp_path / "models"), "--eval", "0", "--epochs", "1"]
    result = lab_main("selfplay", "--teacher-games", str(games), "--rounds", "0", *where)
    assert result.returncode == 130 and "--resume --run t" in result.stderr
    kept = tmp_path / "runs" / "t" / "teacher" / "games.jsonl"
    records = [json.loads(line) for line in kept.open()]
    assert [r["seed"] for r in records] == played  # every finished game kept, to the game
    for record in records:  # annotated as the main job's records are, the opening unlabelled
        assert len(record["values"]) == len(record["moves"]) and record["opening"] == 4
        assert record["values"][:4] == [None] * 4 and None not in record["values"][4:]
    assert not weights_file("tak", tmp_path / "models", {"size": 3}).exists()
    first = list(played)
    wrong = [w if w != "3" else "4" for w in where]  # another board
    result = lab_main("selfplay", "--resume", "--rounds", "0", *wrong)
    said = "is a selfplay run of tak(size=3, komi=0), not a selfplay run of tak(size=4"
    assert result.returncode == 2 and said in result.stderr
    result = lab_main("selfplay", "--resume", "--rounds", "0", *where)
    assert result.returncode == 0, result.stderr
    assert f"teacher: {stop_after}/{games} games kept" in result.stdout
    again = played[len(first) :]  # the games not kept, each once
    assert again[0] == stopped[0] and sorted(first + again) == sorted(set(first + again))
    assert len(first) + len(again) == games
    board = weights_file("tak", tmp_path / "models", {"size": 3})
    net = PolicyValue("tak", board, {"size": 3}).load()
    assert net.options == {"size": 3, "komi": 0} and not kept.parent.exists()


def test_az_file_plays_a_guides_file_on_its_board_alone(tmp_path):
    """A file named as guides ship (az-guide-SIZE.json) is read as a guide of that board;
    one that holds no guide is refused with its name."""
    from mancala.games.tak.guide import guide_file
    from mancala.games.tak.state import new_tak

    player = make_player(f"az-file:{guide_file(5)},n=40", seed=0)
    assert player.choose_move(new_tak(5)) in new_tak(5).legal_moves()
    with pytest.raises(ValueError, match="trained for tak"):
        player.choose_move(new_tak(6))
    junk = tmp_path / "az-guide-5.json"
    junk.write_text('{"policy": 3}')
    with pytest.raises(ValueError, match=f"{junk} is not a guide"):
        make_player(f"az-file:{junk}")
