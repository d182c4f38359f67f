"""The network zoo: encoders, training from the sample games, save/load, the players,
the weights-file errors, `mancala fit`'s corrupt-line count and `mancala train`'s Ctrl+C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from mancala.arena.match import play_games
from mancala.arena.openings import random_opening
from mancala.arena.records import GameLog, append_games, replay
from mancala.core.paths import ROOT
from mancala.game_state import GameState
from mancala.games.masks import legal_mask
from mancala.games.sowing.view import mover_views
from mancala.learn.data import PositionReader, not_measured, record_positions
from mancala.learn.teacher import Teacher
from mancala.nn_lib import encoders
from mancala.nn_lib.base import WeightsError
from mancala.nn_lib.zoo import network, networks_for

SAMPLE = ROOT / "training" / "sample_kalah.jsonl"


@pytest.fixture(scope="module")
def sample():
    """The examples of the committed sample games (a few thousand positions)."""
    assert SAMPLE.stat().st_size < 1_000_000
    chunks = list(PositionReader([SAMPLE]))
    assert len(chunks) == 1
    return chunks[0]


def test_mover_view_swaps_sides_for_player_one():
    state = GameState.new(board=(1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 0, 3, 6, 8), player=1)
    rel = mover_views([state])
    assert rel.tolist() == [[0, 1, 2, 0, 3, 6, 8, 1, 2, 3, 4, 5, 6, 7]]
    assert legal_mask([state]).tolist() == [[False, True, True, False, True, True]]
    # the opposite of own house i is the opponent's house 5 - i (absolute 12 - i)
    assert encoders.rows(rel)[0, :, 1].tolist() == [x / encoders.SCALE for x in (6, 5, 4, 3, 2, 1)]


def test_teacher_values_replay_and_fit_the_game(tmp_path):
    rng = __import__("random").Random(3)
    start, opening = random_opening(GameState.new(), 30, rng)
    from mancala.ai.registry import make_player

    record = play_games(
        [make_player("greedy", 1), make_player("luck", 2)], [start], openings=[opening]
    )[0]
    Teacher(depth=3).annotate(record)
    append_games(tmp_path / "t.jsonl", [record])
    [back] = list(GameLog([tmp_path / "t.jsonl"]))
    rel, gains, mask = record_positions(back)
    states = replay(back)[:-1]
    free = not_measured(states)  # the opening position is in the held-out set: no fit reads it
    assert len(back["moves"]) == len(back["values"]) == len(states) and not free.all()
    assert len(rel) == free.sum()
    assert (mask == legal_mask([s for s, f in zip(states, free) if f])).all()
    # the last move ends the game: its value is the final score difference exactly
    end = GameState.new()
    for move in back["moves"]:
        end = end.play(move)
    before = GameState.new()
    for move in back["moves"][:-1]:
        before = before.play(move)
    mine, theirs = end.scores()[before.player], end.scores()[1 - before.player]
    assert back["values"][-1][back["moves"][-1]] == mine - theirs


@pytest.mark.parametrize("game", ["kalah", "sungka"])
def test_the_az_teacher_values_every_legal_move_in_seeds_and_ends_exactly(tmp_path, game):
    from mancala.ai.registry import make_player
    from mancala.learn.data import PositionReader

    start = GameState.new(game)
    record = play_games([make_player("greedy", 1), make_player("luck", 2)], [start])[0]
    teacher = Teacher(game=game, simulations=50)
    assert teacher.name == "az:50"
    teacher.annotate(record)
    states = replay(record)
    for state, row in zip(states[:-1], record["values"]):
        legal = state.legal_moves()
        assert [m for m, v in enumerate(row) if v is not None] == legal
        assert all(abs(v) <= 2 * sum(state.board) for v in row if v is not None)
    last, end = states[-2], states[-1]
    mine, theirs = end.scores()[last.player], end.scores()[1 - last.player]
    assert record["values"][-1][record["moves"][-1]] == mine - theirs  # the end is exact
    assert any(len(set(v for v in row if v is not None)) > 1 for row in record["values"])
    append_games(tmp_path / "t.jsonl", [record])
    [chunk] = list(PositionReader([tmp_path / "t.jsonl"]))  # the zoo learns from them too
    assert len(chunk[0]) == not_measured(states[:-1]).sum()


def test_the_az_teacher_refuses_a_game_without_margins():
    with pytest.raises(ValueError, match="az teaches the games with final margins"):
        Teacher(game="tak", simulations=50)


@pytest.mark.slow
def test_exact_teacher_gives_solver_values_and_falls_back_to_minimax(monkeypatch):
    """Teacher(exact_nodes=N): the solver's exact values where it proves them within N
    nodes, minimax's where it does not; the record names both."""
    from mancala.ai import solver as solver_player
    from mancala.ai.registry import make_player
    from mancala.arena.records import replay
    from mancala.games.sowing.solver import Solver, default_max_seeds

    rng = __import__("random").Random(5)
    start, opening = random_opening(GameState.new(houses=4, seeds=3), 2, rng)
    players = [make_player("luck", 1), make_player("greedy", 2)]
    record = play_games(players, [start], openings=[opening])[0]
    states = replay(record)[:-1]
    # a small endgame database (4 seeds), so that most positions need a search
    small = Solver(houses=4, max_seeds=4, cache_dir=None, progress=False)
    key = (4, False, default_max_seeds(4, 24))
    monkeypatch.setitem(solver_player._SOLVERS, key, small)

    cheap = Teacher(depth=2, exact_nodes=1)  # first: the table is empty
    cheap_values = cheap.annotate(dict(record))["values"]
    assert cheap.exact > 0 and cheap.searched > 0
    assert cheap.exact + cheap.searched == len(states)
    exact = Teacher(depth=2, exact_nodes=10**7)
    annotated = exact.annotate(dict(record))
    assert annotated["teacher"] == "minimax:2+solver:n=10000000"
    assert (exact.exact, exact.searched) == (len(states), 0)
    full = Solver(houses=4, max_seeds=24, cache_dir=None, progress=False)  # the whole game
    for state, values in zip(states, annotated["values"]):
        moves = full.solve(state)["moves"]
        assert values == [moves.get(m) for m in range(4)]

    differ = sum(a != b for a, b in zip(cheap_values, annotated["values"]))
    assert 0 < differ <= cheap.searched  # depth-2 values where the solver gave up
    with pytest.raises(ValueError, match="exact_nodes"):
        Teacher(exact_nodes=-1)


def test_reader_streams_in_chunks_and_counts_bad_lines(tmp_path, sample):
    path = tmp_path / "games.jsonl"
    path.write_bytes(
        SAMPLE.read_bytes() + b'{"format": 1, "moves": [9, 9]}\nnot json\n{"format": 1, "mov'
    )
    reader = PositionReader([path], chunk=500)
    chunks = list(reader)
    assert len(chunks) > 2
    assert sum(len(c[0]) for c in chunks) == len(sample[0])
    assert reader.skipped == 3


@pytest.mark.parametrize("name", networks_for("kalah"))
def test_each_network_trains_saves_loads_and_numpy_matches_keras(tmp_path, sample, name):
    rel, gains, mask = (a[:1500] for a in sample)
    net = network(name, tmp_path / f"{name}.keras").fresh(seed=1)
    loss = net.fit(rel, gains, mask, epochs=1)
    assert np.isfinite(loss)
    net.save()
    again = network(name, tmp_path / f"{name}.keras").load()
    x = again.encode(rel[:64])
    keras_out = np.asarray(again.model.predict_on_batch(x))
    assert np.allclose(again.forward(x), keras_out, atol=1e-4)
    assert np.allclose(again.predict(rel[:64]), net.predict(rel[:64]), atol=1e-6)
    assert not list(tmp_path.glob(".*"))  # no temp file left


def test_a_settling_fit_with_average_keeps_the_mean_of_its_parts_weights(tmp_path, sample):
    from mancala.nn_lib.training import SLICES, fit_settling

    rel, gains, mask = (a[:800] for a in sample)
    net = network("nn1h128", tmp_path / "n.keras").fresh(seed=3)
    seen, fit = [], net.fit

    def fit_and_keep(*args, **kwargs):
        loss = fit(*args, **kwargs)
        seen.append(net.model.get_weights())
        return loss

    net.fit = fit_and_keep
    fit_settling(net, rel, gains, mask, (1e-3, 1e-4), batch_size=32, average=True)
    assert len(seen) == SLICES
    mean = [np.mean([weights[i] for weights in seen], axis=0) for i in range(len(seen[0]))]
    kept = net.model.get_weights()
    assert all(np.allclose(k, m, atol=1e-6) for k, m in zip(kept, mean, strict=True))
    assert not all(np.allclose(k, last) for k, last in zip(kept, seen[-1]))  # not the last


@pytest.mark.slow
def test_training_on_the_sample_learns_the_teacher(tmp_path, sample):
    from mancala.nn_lib.training import agreement

    rel, gains, mask = sample
    net = network("nnx1h128", tmp_path / "n.keras").fresh(seed=2)
    before = agreement(net, rel, gains, mask)
    net.fit(rel, gains, mask, epochs=4)
    assert agreement(net, rel, gains, mask) > before + 10


@pytest.mark.slow
def test_network_players_play_legal_moves_in_batches():
    from mancala.ai.network import NetworkPlayer
    from mancala.ai.registry import make_player

    rng = __import__("random").Random(0)
    starts = [random_opening(GameState.new(), 6, rng)[0] for _ in range(6)]
    for name in networks_for("kalah"):
        net = network(name)
        player = make_player(name) if net.path.is_file() else NetworkPlayer(net=net.fresh(0))
        sampler = NetworkPlayer(net=player.net, temperature=1.0, seed=4)
        moves = player.choose_moves(starts)
        assert all(m in s.legal_moves() for m, s in zip(moves, starts))
        assert moves == [player.choose_move(s) for s in starts]
        for one, two in ((player, sampler), (sampler, make_player("luck", 1))):
            for record in play_games([one, two], starts):  # raises on an illegal move
                assert record["winner"] in (0, 1, None)


def test_missing_or_corrupt_weights_say_which_file_and_how_to_make_it(tmp_path):
    missing = tmp_path / "nn2h80.keras"
    with pytest.raises(WeightsError, match=r"no weights file .*nn2h80.keras.*mancala fit nn2h80"):
        network("nn2h80", missing).load()
    missing.write_bytes(b"not a zip file")
    with pytest.raises(WeightsError, match=r"nn2h80.keras is not a readable Keras file"):
        network("nn2h80", missing).load()
    network("nn1h128", tmp_path / "other.keras").fresh(0).save()
    with pytest.raises(WeightsError, match=r"maps \(14,\) -> \(6,\), but nnx1h128 needs"):
        network("nnx1h128", tmp_path / "other.keras").load()


def test_a_network_refuses_a_game_it_was_not_built_for():
    from mancala.ai.network import NetworkPlayer

    player = NetworkPlayer(net=network("nn1h128").fresh(0))
    for state in (
        GameState.new("sungka"),
        GameState.new(houses=4),
        GameState.new(empty_capture=True),
    ):
        with pytest.raises(ValueError, match=r"built for kalah\(6,4\), not"):
            player.choose_move(state)


@pytest.mark.slow
def test_train_py_reports_skipped_lines_and_saves(tmp_path, capsys):
    from mancala.commands import fit

    path = tmp_path / "games.jsonl"
    path.write_bytes(SAMPLE.read_bytes() + b"garbage\n{}\n")
    code = fit.main(["nns1h128", str(path), "--epochs", "1", "--models", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "2 corrupt or invalid line(s) skipped" in out
    network("nns1h128", tmp_path / "kalah" / "nns1h128.keras").load()
    assert fit.main(["nn9", str(path)]) == 2
    assert "unknown network 'nn9'" in capsys.readouterr().err
    sungka = ["nnxa2h512", str(path), "--variant", "sungka", "--models", str(tmp_path)]
    assert fit.main(sungka) == 2  # Kalah games for a Sungka network
    assert "another board than sungka's (14 pits, not 16)" in capsys.readouterr().err
    assert not (tmp_path / "sungka").exists()


@pytest.mark.slow
def test_random_train_survives_ctrl_c(tmp_path):
    """A real SIGINT in the middle of training: every recorded line stays a valid game,
    no weights file is half written, the process says so and exits 130."""
    out = tmp_path / "training" / "games.jsonl"
    models = tmp_path / "models"
    command = [
        sys.executable,
        str(ROOT / "mancala" / "random_train.py"),
        "nn1h128",
        "greedy",
        "--games",
        "4",
        "--per-pairing",
        "2",
        "--teacher",
        "3",
        "--sample",
        "3000",
        "--eval-games",
        "2",
        "--out",
        str(out),
        "--models",
        str(models),
        "--run",
        str(tmp_path / "run"),
        "--exact-nodes",
        "0",
        "--labels",
    ]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="2")
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True
    )
    deadline = time.monotonic() + 120
    candidate = tmp_path / "run" / "candidates" / "nn1h128.keras"
    while not candidate.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.5)  # into the next batch: playing, recording or refitting
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 130, output
    assert "interrupted" in output
    log = GameLog([out])
    games = list(log)
    assert games and log.skipped == 0
    assert all(len(g["values"]) == len(g["moves"]) for g in games)
    assert not models.exists() or not [p for p in models.rglob(".*")]
    assert not [p for p in candidate.parent.iterdir() if p.name.startswith(".")]
    network("nn1h128", candidate).load()


def test_random_train_record_only_leaves_the_weights_alone(tmp_path, capsys):
    """--record-only: the network plays from its weights file, every game is recorded
    with the teacher's values, and the weights file is not rewritten."""
    from mancala.commands import train

    models = tmp_path / "models"
    models.mkdir()
    weights = models / "nnx1h128.keras"
    weights.write_bytes(network("nnx1h128").path.read_bytes())
    before = weights.stat().st_mtime_ns
    out = tmp_path / "games.jsonl"
    argv = ["nnx1h128", "greedy", "--record-only", "--batches", "1", "--games", "4"]
    argv += ["--per-pairing", "2", "--teacher", "3", "--out", str(out), "--models", str(models)]
    argv += ["--run", str(tmp_path / "run"), "--exact-nodes", "0"]
    assert train.main(argv) == 0
    assert "batch 1: 4 games recorded" in capsys.readouterr().out
    games = list(GameLog([out]))
    assert len(games) == 4 and all(g["teacher"] == "minimax:3" for g in games)
    assert all("nnx1h128" in g["players"] for g in games)
    assert weights.stat().st_mtime_ns == before
    assert sorted(p.name for p in models.iterdir()) == ["nnx1h128.keras"]


def test_scripts_refuse_bad_arguments(capsys):
    from mancala.commands import adversary, train

    assert adversary.main(["nn1h128", "nn1h128"]) == 2
    assert adversary.main(["nn1h128", "greedy"]) == 2
    err = capsys.readouterr().err
    assert "name two different networks" in err and "'greedy' is not a network" in err
    with pytest.raises(SystemExit) as stop:
        train.main(["luck", "--explore", "2"])
    assert stop.value.code == 2
    assert "argument --explore: must be 0.0..1.0, not 2" in capsys.readouterr().err


def test_networks_are_per_game_and_refuse_another_game(tmp_path):
    """Weights live in models/<game>/<name>.keras; a network built for Sungka plays Sungka
    and refuses Kalah before a move, and the registry offers a name only where it has
    weights."""
    from mancala.ai.network import NetworkPlayer
    from mancala.ai.registry import can_play
    from mancala.nn_lib.base import weights_path
    from mancala.nn_lib.zoo import trained_games

    assert weights_path("nnx2h256", "sungka").parts[-2:] == ("sungka", "nnx2h256.keras")
    assert {"variant": "kalah", "houses": 6, "seeds": 4, "empty_capture": False} in (
        trained_games("nnx2h256")
    )
    assert can_play("nnx2h256", GameState.new()) and not can_play(
        "nnx2h256", GameState.new(houses=5)
    )
    sungka = network("nn1h128", tmp_path / "sungka" / "nn1h128.keras", "sungka").fresh(seed=1)
    player = NetworkPlayer(net=sungka)
    state = GameState.new("sungka")
    assert player.choose_move(state) in state.legal_moves()
    with pytest.raises(ValueError, match="built for sungka"):
        player.choose_move(GameState.new())
    with pytest.raises(ValueError, match="networks play kalah, sungka, tak, not 'go'"):
        network("nn1h128", game="go")


# ----- Tak -----------------------------------------------------------------------------


def tak_games(players, games: int, seed: int = 7) -> list[dict]:
    """Annotated-ready records of `players` from random 2-ply 5x5 openings (each move
    checked legal by the match runner), at most 120 plies each."""
    from mancala.games import new_game

    rng = __import__("random").Random(seed)
    openings = [random_opening(new_game("tak", size=5, komi=0), 2, rng) for _ in range(games)]
    starts, moves = [s for s, _ in openings], [m for _, m in openings]
    return play_games(players, starts, openings=moves, max_plies=120)


@pytest.fixture(scope="module")
def tak_records():
    """Four games of greedy against luck, valued by a depth-2 Tak teacher."""
    from mancala.ai.registry import make_player

    records = tak_games([make_player("greedy", 1), make_player("luck", 2)], 4)
    teacher = Teacher(depth=2, game="tak")
    return [teacher.annotate(record) for record in records]


def test_the_tak_teacher_gives_the_tak_search_values_of_every_legal_move(tmp_path, tak_records):
    from mancala.games import fast_search

    append_games(tmp_path / "t.jsonl", tak_records)
    [back, *_] = list(GameLog([tmp_path / "t.jsonl"]))
    assert back["teacher"] == "minimax:2" and len(back["values"]) == len(back["moves"])
    search = fast_search("tak")()
    for state, values in zip(replay(back)[:-1], back["values"]):
        searched = search.move_values(state, depth=2, exact=True)[0]
        assert values == [searched[m] for m in state.legal_moves()]
    # the last move ends the game for its mover, which the values say
    assert max(back["values"][-1]) > 900_000


@pytest.mark.slow
@pytest.mark.parametrize("name", ["nn2h80", "cnns1h128", "cnn2x64h128"])
def test_a_tak_network_trains_saves_loads_and_plays_legal_moves_only(tmp_path, tak_records, name):
    from mancala.ai.network import NetworkPlayer
    from mancala.ai.registry import make_player
    from mancala.learn.data import record_positions

    x, gains, mask = (np.concatenate(c) for c in zip(*map(record_positions, tak_records)))
    # a row a position: up to 16 of its moves, those present first
    assert x.shape[1:] == (16, 20, 5, 5) and gains.shape == mask.shape == (len(x), 16)
    assert mask[:, 0].all() and (np.diff(mask.astype(int), axis=1) <= 0).all()
    net = network(name, tmp_path / f"{name}.keras", "tak").fresh(seed=1)
    afters = x[:2].reshape(-1, 20, 5, 5)
    before = net.forward(net.encode(afters))
    assert np.isfinite(net.fit(x, gains, mask, epochs=2))
    assert not np.allclose(net.forward(net.encode(afters)), before)  # the network itself learnt
    net.save()
    again = network(name, tmp_path / f"{name}.keras", "tak").load()
    keras_out = np.asarray(again.model.predict_on_batch(again.encode(afters)))
    assert np.allclose(again.forward(again.encode(afters)), keras_out, atol=1e-4)
    player = NetworkPlayer(net=again)
    for record in tak_games([player, make_player("luck", 3)], 2, seed=9):  # illegal: raises
        assert record["players"][0] == name
    # a move that wins at once is taken: white has a road in one on a1..d1
    from mancala.games.tak import from_tps

    state = from_tps("2,2,2,x2/x5/x5/x5/1,1,1,1,x 1 5")
    assert state.move_name(player.choose_move(state)) in ("e1", "Ce1")


def test_tak_and_sowing_networks_refuse_each_others_games(tmp_path):
    from mancala.ai.network import NetworkPlayer
    from mancala.games import new_game

    tak = NetworkPlayer(net=network("nn1h128", tmp_path / "t.keras", "tak").fresh(0))
    kalah = NetworkPlayer(net=network("nn1h128", tmp_path / "k.keras").fresh(0))
    with pytest.raises(ValueError, match=r"built for tak\(size=5, komi=0\), not kalah\(6,4\)"):
        tak.choose_move(GameState.new())
    with pytest.raises(ValueError, match=r"built for tak\(size=5, komi=0\), not tak\(size=4"):
        tak.choose_move(new_game("tak", size=4))
    with pytest.raises(ValueError, match=r"built for kalah\(6,4\), not tak\(size=5, komi=0\)"):
        kalah.choose_move(new_game("tak", size=5))
    with pytest.raises(ValueError, match="network nnx2h256 does not play tak"):
        network("nnx2h256", game="tak")


@pytest.mark.slow
def test_the_main_job_trains_a_network_of_another_board_into_its_own_folder(tmp_path, capsys):
    """`mancala train --variant tak --size 4` keeps its weights in models/tak-size4/,
    their metadata naming the board; the player reads the board from the file, plays it,
    and refuses the default board; the shipped boards are found beside the default."""
    from mancala.ai.network import NetworkPlayer
    from mancala.commands import train
    from mancala.games import new_game
    from mancala.nn_lib.boards import file_rules, trained_boards

    models = tmp_path / "models"
    argv = ["nn1h128", "greedy", "--variant", "tak", "--size", "4", "--batches", "1"]
    argv += ["--games", "4", "--per-pairing", "2", "--teacher", "1", "--models", str(models)]
    argv += ["--run", str(tmp_path / "run"), "--gate-openings", "2", "--eval-games", "1"]
    assert train.main(argv) == 0
    weights = models / "tak-size4" / "nn1h128.keras"
    assert f"gate nn1h128: promoted to {weights}" in capsys.readouterr().out
    assert file_rules(weights) == {"variant": "tak", "size": 4, "komi": 0}
    assert trained_boards("nn1h128.keras", models) == [{"variant": "tak", "size": 4, "komi": 0}]
    player = NetworkPlayer(network="nn1h128", path=weights)
    state = new_game("tak", size=4)
    assert player.choose_move(state) in state.legal_moves()
    with pytest.raises(ValueError, match=r"built for tak\(size=4, komi=0\), not tak\(size=5"):
        player.choose_move(new_game("tak"))
    with pytest.raises(WeightsError, match=r"`mancala train --variant tak --size 4`"):
        network("nn2h80", models / "tak-size4" / "nn2h80.keras", "tak", {"size": 4}).load()
    shipped = trained_boards("nn1h128.keras", ROOT / "mancala" / "models")
    assert {"variant": "tak", "size": 5, "komi": 0} in shipped


@pytest.mark.slow
def test_promote_puts_a_tak_candidate_through_the_gate(tmp_path, capsys):
    """`mancala promote --variant tak` meets DIR/tak/NAME.keras with the shipped weights
    on Tak openings; an untrained candidate is kept out and the decision recorded."""
    import shutil

    from mancala.commands import promote

    models = tmp_path / "models"
    (models / "tak").mkdir(parents=True)
    for suffix in (".keras", ".meta.json"):
        shutil.copy(ROOT / "mancala" / "models" / "tak" / f"nn1h128{suffix}", models / "tak")
    shipped = (models / "tak" / "nn1h128.keras").read_bytes()
    network("nn1h128", tmp_path / "mine" / "tak" / "nn1h128.keras", "tak").fresh(0).save()
    argv = [str(tmp_path / "mine"), "nn1h128", "--variant", "tak", "--models", str(models)]
    assert promote.main([*argv, "--gate-openings", "4", "--gate-opponents", "greedy"]) == 0
    assert "gate nn1h128: kept the current weights" in capsys.readouterr().out
    assert (models / "tak" / "nn1h128.keras").read_bytes() == shipped
    decision = json.loads((tmp_path / "mine" / "gates.jsonl").read_text().splitlines()[-1])
    assert decision["network"] == "nn1h128" and not decision["promoted"]
    with pytest.raises(SystemExit):
        promote.main([str(tmp_path / "mine"), "dqn", "--variant", "tak"])


@pytest.mark.parametrize("game", ["kalah", "sungka"])
def test_the_afterstate_view_values_moves_back_as_its_examples_taught(game):
    """A network that predicts exactly the afterstate view's targets gives back the
    teacher's gain of every legal move that does not end the game, and a move that ends it
    its exact gain: the examples and the move values agree."""
    from mancala.games.sowing.afterstates import afterstates
    from mancala.nn_lib.base import NET_GAMES
    from mancala.nn_lib.views import AfterstateView

    rng = __import__("random").Random(3)
    start = GameState.new(game, **NET_GAMES[game])
    states = [random_opening(start, rng.randrange(1, 30), rng)[0] for _ in range(200)]
    states = [state for state in states if not state.is_over()]
    rel, mask = mover_views(states), legal_mask(states)
    gains = np.where(mask, np.random.default_rng(0).normal(0, 5, mask.shape), 0.0)
    view = AfterstateView(game, NET_GAMES[game])
    after, targets, ones = view.examples(rel, gains, mask)
    assert after.shape[1:] == rel.shape[1:] and ones.all()
    assert len(after) == mask.sum() - sum(
        state.play(move).is_over() for state in states for move in state.legal_moves()
    )
    values = view.board_values(lambda x: targets, rel, mask)
    _, gained, _, live = afterstates(rel, mask, view.rules)
    assert np.allclose(values[live], gains[live], atol=1e-4)
    assert (values[mask & ~live] == gained[mask & ~live]).all()
    assert not values[~mask].any()


@pytest.mark.slow
def test_fit_goes_over_large_data_a_slice_at_a_time(sample, monkeypatch):
    from mancala.nn_lib import base

    monkeypatch.setattr(base, "FIT_CHUNK", 400)
    rel, gains, mask = (a[:1000] for a in sample)
    net = network("nnxa2h512").fresh(seed=1)
    net.compile()
    sizes, fit = [], net.model.fit
    net.model.fit = lambda x, y, **kw: sizes.append((len(x), kw["epochs"])) or fit(x, y, **kw)
    monkeypatch.setattr(base, "FIT_PROGRESS_SECONDS", 0.0)
    before, said = net.predict(rel[:8]), []
    assert np.isfinite(net.fit(rel, gains, mask, epochs=2, progress=said.append))
    assert [line.split(", loss ")[0] for line in said] == [
        f"epoch {e}/2, {done}/1,000 rows" for e in (1, 2) for done in (400, 800, "1,000")
    ]
    examples = [
        len(net.examples(rel[lo : lo + 400], gains[lo : lo + 400], mask[lo : lo + 400])[0])
        for lo in (0, 400, 800)
    ]
    assert sizes == [(n, 1) for n in examples] * 2  # each slice once an epoch, in order
    assert not np.allclose(net.predict(rel[:8]), before)


@pytest.mark.slow
def test_a_fit_takes_its_learning_rate_and_a_smaller_one_moves_the_weights_less(sample):
    rel, gains, mask = (a[:600] for a in sample)
    moved = {}
    for rate in (1e-3, 1e-5):
        net = network("nnx1h128").fresh(seed=3)
        before = net.predict(rel[:64])
        net.fit(rel, gains, mask, learning_rate=rate)
        assert np.isclose(float(net.model.optimizer.learning_rate), rate)
        moved[rate] = np.abs(net.predict(rel[:64]) - before).mean()
    assert moved[1e-5] < moved[1e-3] / 5
    net.fit(rel, gains, mask, learning_rate=2e-4)  # a compiled network takes a new rate
    assert np.isclose(float(net.model.optimizer.learning_rate), 2e-4)
    net.fit(rel[:100], gains[:100], mask[:100], missed_weight=3.0)  # recompiled for the loss
    assert np.isclose(float(net.model.optimizer.learning_rate), 2e-4)  # the rate kept


@pytest.mark.slow
def test_a_fit_weighs_up_the_positions_the_network_gets_wrong(sample):
    rel, gains, mask = (a[:600] for a in sample)
    losses = {}
    for weight in (1.0, 4.0):
        net = network("nnx1h128").fresh(seed=3)  # its first choices mostly not the teacher's
        losses[weight] = net.fit(rel, gains, mask, learning_rate=1e-6, missed_weight=weight)
        assert net.missed_weight == weight
    assert losses[4.0] > 1.5 * losses[1.0]


@pytest.mark.parametrize("game", ["kalah", "sungka"])
def test_tactics_show_what_each_side_s_moves_gain_by_the_readable_rules(game):
    from mancala.games.sowing.engine import rules_of
    from mancala.nn_lib.base import NET_GAMES

    rng = __import__("random").Random(5)
    start = GameState.new(game, **NET_GAMES[game])
    states = [random_opening(start, rng.randrange(0, 40), rng)[0] for _ in range(150)]
    states = [state for state in states if not state.is_over()]
    features = encoders.tactics(mover_views(states), rules_of(start))
    h = start.houses
    for state, row in zip(states, features.reshape(len(states), 4, h)):
        for side, (gains, again) in enumerate((row[:2], row[2:])):
            seat = state.player ^ side  # the mover's houses, then the opponent's
            turned = GameState.new(game, state.board, seat, **state.options)
            for house in range(h):  # (a Sungka side with no shells passes: none legal)
                if turned.player != seat or house not in turned.legal_moves():
                    assert gains[house] == again[house] == 0
                    continue
                after = turned.play(house)
                lead = [s.scores()[seat] - s.scores()[1 - seat] for s in (turned, after)]
                assert gains[house] * encoders.SCALE == lead[1] - lead[0]
                assert again[house] == (after.player == seat)  # sown into its store
    net = network("nnxat2h512", game=game)
    assert net.input_shape() == (network("nnxa2h512", game=game).input_shape()[0] + 4 * h,)


def test_weights_of_another_input_encoding_are_refused(tmp_path):
    from mancala.nn_lib.meta import meta_path
    from mancala.nn_lib.policy_value import PolicyValue

    net = network("nn1h128", tmp_path / "nn1h128.keras").fresh(seed=1)
    path = net.save(teacher="t", data="d")
    assert json.loads(meta_path(path).read_text())["encoding"] == net.ENCODING
    network("nn1h128", path).load()  # the same version: read
    meta = json.loads(meta_path(path).read_text())
    meta_path(path).write_text(json.dumps(meta | {"encoding": net.ENCODING + 1}))
    with pytest.raises(WeightsError, match="encoding version 2, but this version of the lab"):
        network("nn1h128", path).load()
    meta_path(path).write_text(json.dumps({k: v for k, v in meta.items() if k != "encoding"}))
    network("nn1h128", path).load()  # written before versions were kept: version 1
    pv = PolicyValue("kalah", tmp_path / "pv.keras").fresh(seed=1)
    pv_path = pv.save(tmp_path / "pv.keras", teacher="t", data="d")
    meta_path(pv_path).write_text(json.dumps({"encoding": 7}))
    with pytest.raises(WeightsError, match="encoding version 7"):
        PolicyValue("kalah", pv_path).load()


@pytest.mark.parametrize(
    ("name", "found"), [("nn2h80", 1), ("cnns1h128", 1), ("cnns1h128", 2), ("cnn2x64h128", 3)]
)
def test_tak_weights_of_fewer_feature_planes_read_the_added_ones_and_play_as_before(
    tmp_path, name, found
):
    """Weights saved before the feature planes (encoding 1), before the two of the moves
    that finish a road (2) or before the threats (3), load with what was added weighted
    zero: their values are the old model's of the inputs it had; saved, they are this
    version's."""
    from mancala.games.tak import new_tak
    from mancala.games.tak.features import feature_planes
    from mancala.games.tak.planes import planes
    from mancala.nn_lib.keras_io import import_keras, save_keras
    from mancala.nn_lib.meta import meta_path, write_meta
    from mancala.nn_lib.views import TAK_SCALE

    keras = import_keras()
    keras.utils.set_random_seed(3)
    net = network(name, tmp_path / f"{name}.keras", game="tak")

    def old_inputs(x):  # the planes alone (1), or with the first 8 (2) or 10 (3) feature planes
        return np.concatenate([x, feature_planes(x)[:, : 2 * found + 4]], 1) if found > 1 else x

    old_input = net.encode_planes(old_inputs(net.view.blank())).shape[1:]
    old = keras.Sequential(
        [keras.Input(old_input), *net.layers(keras), keras.layers.Dense(1, name="move_values")]
    )
    save_keras(old, net.path)
    write_meta(net.path, teacher="t", data="d", encoding=found)
    state = new_tak(5)
    for ply in range(6):
        moves = state.legal_moves()
        state = state.play(moves[(7 * ply) % len(moves)])
    after = [state.play(move) for move in state.legal_moves()]
    x = np.stack([planes(a, state.player) for a in after])
    want = np.arctanh(old.predict(net.encode_planes(old_inputs(x)), verbose=0)[:, 0]) * TAK_SCALE
    loaded = network(name, net.path, game="tak").load()
    assert loaded.model.input_shape[1:] == net.input_shape() != old_input
    values, _ = loaded.move_values([state])
    np.testing.assert_allclose(values[0, state.legal_moves()], want, rtol=1e-5, atol=1e-5)
    loaded.save(teacher="t", data="d")
    assert json.loads(meta_path(net.path).read_text())["encoding"] == net.ENCODING == 4
    write_meta(net.path, teacher="t", data="d", encoding=5)  # a later version: refused
    with pytest.raises(WeightsError, match="encoding version 5"):
        network(name, net.path, game="tak").load()
