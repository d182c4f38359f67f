"""The Sungka paper's DQN: a short training run, save/load, the player, the evaluation."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from mancala.ai.dqn import SEATS, DQNPlayer, encode, has_weights, weights_path
from mancala.ai.registry import available_players, make_player
from mancala.arena.match import play_games
from mancala.commands.dqn import main as train_main
from mancala.commands.measure_dqn import PAPER_WIN
from mancala.commands.measure_dqn import main as eval_main
from mancala.game_state import GameState
from mancala.learn.dqn import build_model, train


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Three episodes of training (small batch so that train steps happen)."""
    out = tmp_path_factory.mktemp("dqn") / "dqn-sungka-first.keras"
    lines = []
    summary = train(
        "sungka", 0, episodes=3, seed=1, out=out, eval_every=2, eval_games=2, batch=16,
        replay_size=500, keep="worst", log=lines.append,
    )  # fmt: skip
    return out, summary, lines


@pytest.mark.slow
def test_training_saves_weights_curve_and_plot(trained):
    out, summary, lines = trained
    assert out.is_file() and out.with_suffix(".png").is_file()
    assert out.with_suffix(".json").is_file()
    assert summary["train_steps"] > 0 and summary["moves"] >= summary["train_steps"]
    assert summary["episodes"] == 3
    assert lines[0].startswith("episode 2/3") and "luck: win" in lines[0]
    assert lines[-1].startswith("saved ")
    curve = json.loads(out.with_suffix(".json").read_text())["curve"]
    worst = [min(p[name]["win"] for name in ("luck", "max", "exact")) for p in curve]
    assert summary["kept"] == "worst" and summary["best_win"] == max(worst)


def test_a_seeded_run_gives_the_same_moves_curve_and_weights(trained):
    """The numbers of this seeded run before `train` was split into steps: a change that
    moves the random draws, the train steps or the kept weights shows here."""
    import keras

    out, summary, _ = trained
    assert (summary["moves"], summary["train_steps"], summary["best_win"]) == (45, 30, 0.0)
    curve = json.loads(out.with_suffix(".json").read_text())["curve"]
    scores = [[p[name]["score"] for name in ("luck", "max", "exact")] for p in curve]
    assert scores == [[47.5, 36.0, 35.0], [47.0, 54.0, 26.0]]
    weights = keras.models.load_model(out, compile=False).get_weights()
    sums = [float(np.abs(w).sum()) for w in weights]
    assert sums == pytest.approx([179.525, 0.638, 2062.169, 1.013, 137.989, 0.0335], rel=1e-3)


@pytest.mark.slow
def test_training_from_random_openings_measures_them_too(tmp_path):
    out = tmp_path / "dqn-kalah-second.keras"
    lines = []
    summary = train(
        "kalah", 1, episodes=2, seed=2, out=out, eval_every=2, eval_games=4, batch=16,
        replay_size=500, keep="worst", openings=2, log=lines.append,
    )  # fmt: skip
    assert summary["openings"] == 2
    assert "luck from 2-move openings: win" in lines[0]
    point = json.loads(out.with_suffix(".json").read_text())["curve"][0]
    names = ("luck", "max", "exact", "luck from 2-move openings")
    worst = min(point[name]["win"] for name in names)
    assert summary["best_win"] == worst
    with pytest.raises(ValueError, match="openings must be a number of moves >= 0"):
        train("kalah", 0, episodes=1, out=out, openings=-1)


def test_the_training_command_never_writes_over_the_shipped_weights(tmp_path, monkeypatch):
    import mancala.commands.dqn as command

    monkeypatch.setattr(command, "RUNS_DIR", tmp_path)
    shipped = weights_path("sungka", 0)
    before = shipped.read_bytes()
    args = ["--episodes", "1", "--eval-every", "1", "--eval-games", "1", "--openings", "1"]
    assert train_main(args) == 0
    assert (tmp_path / "dqn" / "sungka" / "dqn-first.keras").is_file()
    assert shipped.read_bytes() == before


def test_saved_net_predicts_the_same_in_keras_and_numpy(trained):
    import keras

    from mancala.nn_lib.numpy_forward import NumpyForward

    model = keras.models.load_model(trained[0], compile=False)
    assert model.input_shape == (None, 14) and model.output_shape == (None, 7)
    assert [layer.units for layer in model.layers] == [128, 256, 7]
    x = np.random.default_rng(0).random((9, 14)).astype("float32")
    assert np.allclose(NumpyForward(model)(x), model.predict_on_batch(x), atol=1e-4)


@pytest.mark.parametrize("variant", ["sungka", "kalah"])
def test_player_plays_legal_moves_in_both_seats(trained, variant):
    from mancala.nn_lib.numpy_forward import NumpyForward

    start = GameState.new(variant)
    houses = start.houses
    forwards = {(variant, seat): NumpyForward(build_model(houses)) for seat in (0, 1)}
    if variant == "sungka":
        forwards[("sungka", 0)] = DQNPlayer(models_dir=trained[0].parent).forward(start)
    dqn = DQNPlayer(seed=0, epsilon=0.1, forwards=forwards)
    dqn.name = "dqn"
    luck = make_player("luck", seed=0)
    for players in ([dqn, luck], [luck, dqn], [dqn, dqn]):
        records = play_games(players, [start] * 4)  # the match runner rejects illegal moves
        assert all(sum(r["scores"]) == start.seeds * houses * 2 for r in records)
    values = dqn.evaluate(start)["moves"]
    assert sorted(values) == start.legal_moves()


@pytest.mark.slow
def test_a_one_hot_net_trains_saves_and_plays_with_its_own_input(tmp_path):
    import keras

    from mancala.ai.dqn import encode_one_hot
    from mancala.games.sowing.view import mover_views
    from mancala.nn_lib.encoders import one_hot

    out = tmp_path / "dqn-sungka-first.keras"
    summary = train(
        "sungka", 0, episodes=2, seed=1, out=out, eval_every=2, eval_games=2, batch=16,
        replay_size=500, encoder="one_hot", hidden=(32, 16), log=lambda line: None,
    )  # fmt: skip
    assert summary["encoder"] == "one_hot" and summary["hidden"] == [32, 16]
    model = keras.models.load_model(out, compile=False)
    assert model.input_shape == (None, 2 * 7 * 16 + 2)
    assert [layer.units for layer in model.layers] == [32, 16, 7]
    states = [GameState.new("sungka").play(1), GameState.new("sungka")]
    dqn = DQNPlayer(models_dir=tmp_path)
    x = one_hot(mover_views(states[1:]))
    np.testing.assert_array_equal(encode_one_hot(states[1:]), x)
    want = model.predict_on_batch(x)[0]
    got = dqn.evaluate(states[1])["moves"]
    assert np.allclose([got[m] for m in range(7)], want, atol=1e-4)
    with pytest.raises(ValueError, match="hidden layers"):
        train("sungka", 0, episodes=1, out=tmp_path / "x.keras", hidden=(0,))


@pytest.mark.slow
@pytest.mark.parametrize("form", ["afterstate", "afterstate_tactics"])
def test_an_afterstate_net_values_each_move_by_the_board_after_it(tmp_path, form):
    import keras

    from mancala.games.sowing.engine import rules_of
    from mancala.games.sowing.view import mover_views
    from mancala.nn_lib.encoders import one_hot, tactics

    def sees(board):  # the input the readable description of the form gives
        extra = [tactics(board, rules_of(GameState.new("sungka")))] * (form != "afterstate")
        return np.concatenate([one_hot(board), *extra], axis=1)

    out = tmp_path / "dqn-sungka-second.keras"
    summary = train(
        "sungka", 1, episodes=2, seed=1, out=out, eval_every=2, eval_games=2, batch=16,
        replay_size=500, encoder=form, hidden=(32,), log=lambda line: None,
    )  # fmt: skip
    assert summary["train_steps"] > 0
    model = keras.models.load_model(out, compile=False)
    assert model.output_shape == (None, 1)
    assert model.input_shape == (None, 226 + 28 * (form != "afterstate"))  # 14 houses x 16 + 2
    dqn = DQNPlayer(models_dir=tmp_path)
    rng = np.random.default_rng(0)
    state = GameState.new("sungka").play(3)  # the second seat to move
    while not state.is_over():
        if state.player == 1:
            got = dqn.evaluate(state)["moves"]
            for move in state.legal_moves():  # the readable rules, move by move
                after = state.play(move)
                lead = after.board[15] - after.board[7] - (state.board[15] - state.board[7])
                want = lead / 7
                if not after.is_over():
                    value = model.predict_on_batch(sees(mover_views([after])))[0, 0]
                    want += value if after.player == 1 else -value
                assert got[move] == pytest.approx(want, abs=1e-4)
        state = state.play(int(rng.choice(state.legal_moves())))


def test_the_net_sees_the_houses_from_the_movers_side():
    board = (1, 2, 3, 4, 5, 6, 7, 0) + (7,) + (0,) * 6 + (63,)
    state = GameState.new("sungka", board=board, player=1)
    expected = [1.0] + [0.0] * 6 + [v / 7 for v in range(1, 8)]
    assert np.allclose(encode([state])[0], expected)


def test_missing_weights_name_the_file_and_the_command(tmp_path):
    dqn = DQNPlayer(models_dir=tmp_path)
    with pytest.raises(ValueError) as error:
        dqn.choose_move(GameState.new("kalah").play(0))  # the second seat's net
    message = str(error.value)
    assert str(tmp_path / "kalah" / "dqn-second.keras") in message
    assert "mancala dqn --variant kalah --seat second" in message
    with pytest.raises(ValueError, match="trained for kalah"):
        dqn.choose_move(GameState.new("kalah", houses=4, seeds=3))


def test_registry_offers_dqn_only_with_its_weights():
    assert ("dqn" in available_players()) == has_weights()
    if has_weights():
        dqn = make_player("dqn", seed=0)
        for variant in ("sungka", "kalah"):
            assert dqn.choose_move(GameState.new(variant)) in GameState.new(variant).legal_moves()


def test_evaluation_prints_the_papers_tables(trained, tmp_path, capsys):
    (tmp_path / "sungka").mkdir()
    for seat in (0, 1):  # the three-episode net stands in for both seats
        shutil.copy(trained[0], weights_path("sungka", seat, tmp_path))
    assert eval_main(["--games", "3", "--models", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Table II (sungka): DQN as the first player, 3 games a row" in out
    assert "Table III" in out and f"| {PAPER_WIN['first']['exact']:.1f} |" in out
    assert out.count("| self |") == 2
    with pytest.raises(SystemExit) as stop:
        eval_main(["--games", "0"])
    assert stop.value.code == 2


@pytest.mark.slow
def test_a_run_can_start_from_saved_weights_and_keeps_them_unless_beaten(trained, tmp_path):
    """--init: the run starts from the file's net, measures it at episode 0, and keeps
    an evaluation's weights only when they score at least as high."""
    import keras

    start, _, _ = trained
    out = tmp_path / "again.keras"
    lines = []
    summary = train(
        "sungka", 0, episodes=2, seed=5, out=out, eval_every=2, eval_games=2, batch=16,
        replay_size=500, keep="worst", init=start, log=lines.append,
    )  # fmt: skip
    assert lines[0].startswith("episode 0/2") and summary["init"] == str(start)
    curve = json.loads(out.with_suffix(".json").read_text())["curve"]
    worst = [min(p[name]["win"] for name in ("luck", "max", "exact")) for p in curve]
    assert [p["episode"] for p in curve] == [0, 2] and summary["best_win"] == max(worst)
    saved = keras.models.load_model(out, compile=False).get_weights()
    first = keras.models.load_model(start, compile=False).get_weights()
    same = all(np.array_equal(a, b) for a, b in zip(saved, first, strict=True))
    assert same == (worst[1] < worst[0])  # the start's weights, unless episode 2 scored as high
    with pytest.raises(ValueError, match="not a net of this run's form"):
        train("sungka", 0, episodes=1, out=out, hidden=(8, 8), init=start)
    with pytest.raises(ValueError, match="the initial weights: no weights file"):
        train("sungka", 0, episodes=1, out=out, init=tmp_path / "absent.keras")


@pytest.mark.slow
def test_double_dqn_values_the_next_position_by_the_target_at_the_acting_nets_choice(tmp_path):
    from types import SimpleNamespace

    from mancala.learn.dqn import Learner

    target = np.array([[1.0, 5.0, 3.0], [2.0, 0.0, 9.0]])
    acting = np.array([[0.0, 1.0, 4.0], [7.0, 0.0, 8.0]])
    legal = np.array([[True, True, True], [True, True, False]])
    plain = SimpleNamespace(settings=SimpleNamespace(double=False))
    double = SimpleNamespace(settings=SimpleNamespace(double=True))
    assert Learner._next_value(plain, target, lambda: acting, legal).tolist() == [5.0, 2.0]
    assert Learner._next_value(double, target, lambda: acting, legal).tolist() == [3.0, 2.0]
    out = train(
        "sungka", 0, episodes=2, seed=3, out=tmp_path / "double.keras", eval_every=2,
        eval_games=2, batch=16, replay_size=500, encoder="afterstate", hidden=(8,),
        double=True, log=lambda line: None,
    )  # fmt: skip
    assert out["double"] and out["train_steps"] > 0


def test_training_command_refuses_bad_input(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        train_main(["--episodes", "0", "--out", str(tmp_path / "x.keras")])
    assert stop.value.code == 2
    assert "mancala dqn: argument --episodes: must be >= 1, not 0" in capsys.readouterr().err
    assert train_main(["--opponents", "nobody"]) == 2
    assert train_main(["--out", str(tmp_path / "x.h5"), "--episodes", "1"]) == 2
    err = capsys.readouterr().err
    assert "mancala dqn: unknown player 'nobody'" in err and ".keras" in err
    with pytest.raises(SystemExit):
        train_main(["--hidden", "128,x", "--out", str(tmp_path / "x.keras")])
    assert "must be sizes such as 128,256, not '128,x'" in capsys.readouterr().err


@pytest.mark.slow
def test_the_promotion_gate_refuses_weaker_nets_and_keeps_what_it_replaces(tmp_path, capsys):
    from mancala.commands.promote import main as promote
    from mancala.nn_lib.keras_io import save_keras

    shipped, weak, same = tmp_path / "models", tmp_path / "weak", tmp_path / "same"
    for folder in (shipped / "sungka", weak / "sungka", same):
        folder.mkdir(parents=True)
    for seat in (0, 1):
        path = weights_path("sungka", seat)
        shutil.copy(path, weights_path("sungka", seat, shipped))
        shutil.copy(path, same / f"dqn-sungka-{SEATS[seat]}.keras")  # a folder made before
        save_keras(build_model(7), weights_path("sungka", seat, weak))  # untrained: weaker
    before = {p.name: p.read_bytes() for p in (shipped / "sungka").iterdir()}
    args = ["dqn", "--variant", "sungka", "--gate-openings", "5", "--models", str(shipped)]
    assert promote([str(weak), *args]) == 0
    assert "kept the current weights" in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in (shipped / "sungka").iterdir()} == before
    record = json.loads((weak / "gates.jsonl").read_text().splitlines()[-1])
    assert record["promoted"] is False and record["network"] == "dqn"
    assert promote([str(same), *args]) == 0  # identical nets pass, the old ones kept
    assert "promoted" in capsys.readouterr().out
    replaced = sorted((shipped / "replaced" / "sungka").iterdir())
    assert [p.name.rsplit("-", 1)[0] for p in replaced] == ["dqn-first", "dqn-second"]
    assert [p.read_bytes() for p in replaced] == [before[n] for n in sorted(before)]
    assert promote([str(tmp_path / "nowhere"), *args]) == 2  # a usage error
    assert "no DQN weights at" in capsys.readouterr().err
