"""The promotion gate refuses weaker weights, passes equal ones, and keeps what it replaces;
`mancala train` puts every candidate through it."""

import json

import pytest

from mancala.ai.network import NetworkPlayer
from mancala.ai.registry import make_player
from mancala.game_state import GameState
from mancala.learn.gate import gate
from mancala.learn.promotion import promote
from mancala.learn.runs import Run
from mancala.learn.scalars import read_scalars
from mancala.nn_lib.meta import meta_path
from mancala.nn_lib.zoo import network


def test_an_untrained_candidate_is_refused(tmp_path):
    shipped = NetworkPlayer(network="nn1h128")
    weakened = NetworkPlayer(net=network("nn1h128", tmp_path / "fresh.keras").fresh(seed=3))
    result = gate(weakened, shipped, ["greedy"], GameState.new(), openings=20)
    assert not result.promoted
    assert result.games == 40
    assert result.head_to_head < 0.5
    assert "against the weights it would replace" in result.reason


def test_the_record_shows_both_sides_against_the_fixed_opponents(capsys):
    result = gate(
        make_player("luck", seed=2),
        make_player("minimax:4", seed=2),
        ["greedy"],
        GameState.new(),
        openings=20,
    )
    assert not result.promoted
    greedy = result.against["greedy"]
    assert greedy["candidate"] < greedy["incumbent"] - 1.645 * greedy["standard_error"]
    assert "120/120" in capsys.readouterr().err  # the bar: 40 games head to head, 40 a side


def test_the_same_weights_pass_the_gate():
    # Deterministic and identical: each opening's two games mirror each other.
    one, two = NetworkPlayer(network="nn1h128"), NetworkPlayer(network="nn1h128")
    result = gate(one, two, ["greedy"], GameState.new(), openings=20)
    assert result.promoted, result.reason
    assert result.head_to_head == 0.5
    greedy = result.against["greedy"]
    assert greedy["candidate"] == greedy["incumbent"]


def test_against_perfect_play_a_gain_on_the_solved_set_is_the_evidence():
    """Where the solver reaches, rule 2 asks for more value-keeping moves, not for more
    wins against the fixed opponents (here equal: the same weights)."""
    one, two = NetworkPlayer(network="nn1h128"), NetworkPlayer(network="nn1h128")
    ahead = ([1.0] * 100, [1.0] * 80 + [0.0] * 20)  # 20 more positions kept
    result = gate(one, two, ["greedy"], GameState.new(), openings=10, exact=ahead)
    assert result.promoted, result.reason
    assert result.kept_share == [100.0, 80.0] and "against perfect play: keeps" in result.reason
    greedy = result.against["greedy"]
    assert greedy["candidate"] == greedy["incumbent"]  # no gain there, and none asked
    barely = ([1.0] * 81 + [0.0] * 19, [1.0] * 80 + [0.0] * 20)  # one position: noise
    refused = gate(one, two, ["greedy"], GameState.new(), openings=10, exact=barely)
    assert not refused.promoted and refused.games == 0 and refused.head_to_head is None
    assert "against perfect play" in refused.reason


def test_a_head_to_head_within_noise_of_even_does_not_refuse_a_gain():
    """Ahead on perfect play by two standard errors: 49.5% against the incumbent over 200
    pairs is noise and passes; 40% is refused. The head-to-head's error is over pairs."""
    from mancala.learn.gate import verdict

    exact = ([1.0] * 900 + [0.0] * 100, [1.0] * 850 + [0.0] * 150)
    sides = {"greedy": [[1.0] * 400, [1.0] * 400]}
    near = [1.0] * 100 + [0.0] * 100 + [1.0] * 98 + [0.0] * 102  # first seat, then second
    result = verdict(near, sides, exact)
    assert result.promoted and result.head_to_head == pytest.approx(0.495)
    assert "49.5% ± " in result.reason and "keeps the exact value in 90.0%" in result.reason
    far = [1.0] * 80 + [0.0] * 120
    refused = verdict(far + far, sides, exact)
    assert not refused.promoted and "40.0% ± 3.5% against the weights" in refused.reason
    behind = {"greedy": [[1.0] * 380 + [0.0] * 20, [1.0] * 400]}  # 20 games lost more
    assert "but behind on the score against greedy" in verdict(near, behind, exact).reason


def test_a_network_tried_often_must_be_further_ahead(tmp_path):
    """The n-th gate of a network since its last promotion in a run asks lead_for(n)
    standard errors: a gain of 2.6 passes the first try and not the twentieth."""
    from mancala.learn.gate import lead_for, verdict

    run = Run.open(str(tmp_path / "run"), resume=False)
    assert run.tries("nn1h128") == 1
    for promoted in (False, False, True, False):
        run.record_gate("nn1h128", {"promoted": promoted})
    run.record_gate("nn2h80", {"promoted": False})
    assert run.tries("nn1h128") == 2 and run.tries("nn2h80") == 2
    rest = [1.0] * 800 + [0.0] * 100  # ahead in 63 positions, behind in 37: +2.6 SE
    exact = ([1.0] * 63 + [0.0] * 37 + rest, [0.0] * 63 + [1.0] * 37 + rest)
    near = [1.0] * 100 + [0.0] * 100 + [1.0] * 100 + [0.0] * 100
    first = verdict(near, {}, exact, lead=lead_for(1))
    assert first.promoted
    many = gate(
        make_player("greedy", seed=1),
        make_player("greedy", seed=1),
        [],
        GameState.new(),
        openings=2,
        lead=lead_for(20),
        exact=exact,
    )
    assert not many.promoted and "not 2.81 standard errors ahead" in many.reason


def test_promote_keeps_the_replaced_file(tmp_path):
    target, candidate = tmp_path / "models" / "n.keras", tmp_path / "run" / "n.keras"
    target.parent.mkdir()
    candidate.parent.mkdir()
    target.write_bytes(b"old weights")
    candidate.write_bytes(b"new weights")
    meta_path(candidate).write_text("new metadata")
    kept = promote(candidate, target, tmp_path / "models" / "replaced")
    assert target.read_bytes() == b"new weights"
    assert meta_path(target).read_text() == "new metadata"
    assert kept is not None and kept.read_bytes() == b"old weights"
    assert kept.parent == tmp_path / "models" / "replaced"
    assert promote(candidate, tmp_path / "models" / "new.keras", tmp_path / "kept") is None


def _train(tmp_path, *extra):
    from mancala.commands import train as main_job

    argv = ["nn1h128", "greedy", "--run", str(tmp_path / "run"), "--models"]
    argv += [str(tmp_path / "models"), "--batches", "1", "--games", "4", "--per-pairing", "2"]
    argv += ["--teacher", "2", "--eval-games", "2", "--sample", "2000", "--gate-openings", "20"]
    argv += ["--gate-opponents", "greedy", "--exact-nodes", "0", "--labels", *extra]
    return main_job.main(argv)


@pytest.mark.slow
def test_the_refits_learn_from_the_exact_labels_that_ship(tmp_path, capsys):
    """The store starts with the exact positions of the labels (by default those shipped
    for the board: mancala/data/kalah/), then the run's games."""
    import itertools

    from mancala.games import new_game
    from mancala.learn.data import record_positions
    from mancala.learn.labels import labelled, shipped_labels

    shipped = shipped_labels(new_game("kalah"))
    assert shipped and all(p.name.startswith("kalah-h6-s4-labels-") for p in shipped)
    assert shipped_labels(new_game("kalah", seeds=5)) == shipped_labels(new_game("tak")) == []
    assert any(p.name == "kalah-h6-s4-labels-plies.jsonl.xz" for p in shipped)  # first plies
    games = [p for p in shipped if "-labels-seed" in p.name]
    records = list(itertools.islice(labelled(games[:1]), 30))
    small = tmp_path / "labels.jsonl"
    small.write_text("".join(json.dumps(r) + "\n" for r in records))
    exact = sum(len(p[0]) for r in records if (p := record_positions(r, exact_only=True)))
    assert 0 < exact < sum(len(r["values"]) for r in records)  # searched ones left out
    assert _train(tmp_path, "--labels", str(small)) == 0
    out = capsys.readouterr().out
    assert "reading the labels of 1 file(s)" in out
    assert f"{exact:,} exactly labelled positions of 30 games; 0 annotated game(s)" in out


def _gates(tmp_path):
    lines = (tmp_path / "run" / "gates.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.slow
@pytest.mark.parametrize("screened", [False, True])
def test_random_train_keeps_the_shipped_weights_against_a_weakened_candidate(
    tmp_path, capsys, monkeypatch, screened
):
    """Refused by the gate's games; or at once, with a solved set, for not keeping the
    value in more of its positions than the shipped weights."""
    from mancala.arena.solved_set import shipped_set
    from mancala.learn import main_job as loop

    solved = shipped_set(GameState.new())[:100] if screened else []  # the whole-game set
    monkeypatch.setattr(loop, "gate_positions", lambda game, rules=None: solved)
    models = tmp_path / "models"
    models.mkdir()
    shipped = models / "kalah" / "nn1h128.keras"
    shipped.parent.mkdir()
    shipped.write_bytes(network("nn1h128").path.read_bytes())
    run = Run.open(str(tmp_path / "run"), resume=False)
    network("nn1h128", run.candidate("nn1h128")).fresh(seed=3).save()  # untrained weights
    assert _train(tmp_path, "--resume") == 0
    assert "gate nn1h128: kept the current weights" in capsys.readouterr().out
    assert shipped.read_bytes() == network("nn1h128").path.read_bytes()
    assert sorted(p.name for p in shipped.parent.iterdir()) == ["nn1h128.keras"]
    (decision,) = _gates(tmp_path)
    assert decision["network"] == "nn1h128" and not decision["promoted"]
    if screened:
        assert decision["games"] == 0 and "against perfect play" in decision["reason"]
        mine, theirs = decision["kept_share"]
        assert mine < theirs
    else:
        assert decision["games"] == 40 and decision["head_to_head"] < 0.5


@pytest.mark.slow
def test_random_train_gates_first_weights_against_random_play(tmp_path, capsys, caplog):
    """Nothing to replace: the refit of four games meets random play on the solved set,
    which it does not beat by two standard errors, so nothing is installed."""
    assert _train(tmp_path) == 0
    assert "gate nn1h128: kept the current weights" in capsys.readouterr().out
    assert not (tmp_path / "models" / "kalah" / "nn1h128.keras").exists()
    (decision,) = _gates(tmp_path)
    assert not decision["promoted"] and "against random play (luck)" in decision["reason"]
    network("nn1h128", tmp_path / "run" / "candidates" / "nn1h128.keras").load()
    assert (tmp_path / "run" / "curve.json").is_file()
    assert (tmp_path / "run" / "log.txt").read_text().count("batch 1:") == 1
    scalars = {
        (step, tag): value for step, tag, value in read_scalars(tmp_path / "run" / "tensorboard")
    }
    assert scalars[(1, "gate/nn1h128/promoted")] == 0.0
    assert scalars[(1, "games")] == 4 and (1, "rates/greedy/nn1h128") in scalars
    assert _train(tmp_path, "--resume") == 0  # reads the run's games, not its gate records
    assert "4 annotated game(s)" in capsys.readouterr().out
    assert "corrupt" not in caplog.text


def test_runs_are_not_overwritten_and_resume_needs_a_run(tmp_path, capsys):
    Run.open(str(tmp_path / "run"), resume=False)
    (tmp_path / "run" / "log.txt").write_text("an earlier run\n")
    assert _train(tmp_path) == 2
    assert "already exists" in capsys.readouterr().err
    assert _train(tmp_path, "--run", str(tmp_path / "none"), "--resume") == 2
    assert "found no run" in capsys.readouterr().err
    job = {"job": "selfplay", "game": "sungka(7,7)"}  # a run of another job, board
    Run.open(str(tmp_path / "other"), resume=False, job=job)
    assert _train(tmp_path, "--run", str(tmp_path / "other"), "--resume") == 2
    said = "is a selfplay run of sungka(7,7), not a train run of kalah(6,4): resume it with"
    assert said in capsys.readouterr().err


@pytest.mark.slow
def test_random_train_reports_a_damaged_weights_file_and_does_not_use_it(tmp_path, capsys):
    """A damaged candidate in the run and damaged shipped weights: each is named as
    damaged and passed over (the network starts fresh), and the run goes on."""
    models = tmp_path / "models"
    models.mkdir()
    (models / "kalah").mkdir()
    (models / "kalah" / "nn1h128.keras").write_bytes(b"not a keras file")
    run = Run.open(str(tmp_path / "run"), resume=False)
    run.candidate("nn1h128").parent.mkdir(parents=True, exist_ok=True)
    run.candidate("nn1h128").write_bytes(b"\x00" * 100)
    assert _train(tmp_path, "--resume") == 0
    out = capsys.readouterr().out
    assert out.count("nn1h128: not using") == 2 and "it is damaged" in out
    assert "nn1h128: fresh weights" in out
    network("nn1h128", run.candidate("nn1h128")).load()  # refit and saved whole
    (decision,) = _gates(tmp_path)
    assert decision["promoted"] and "damaged" in decision["reason"]
    assert list((models / "replaced" / "kalah").iterdir())  # the damaged file is kept


@pytest.mark.slow
def test_random_train_trains_and_gates_sungka_networks(tmp_path, capsys):
    """--variant sungka: each candidate meets the Sungka weights in Sungka games; Kalah's
    weights are left alone."""
    from mancala.commands import train as main_job

    argv = ["nn1h128", "greedy", "--variant", "sungka", "--run", str(tmp_path / "run")]
    argv += ["--models", str(tmp_path / "models"), "--batches", "2", "--games", "4"]
    argv += ["--per-pairing", "2", "--teacher", "2", "--eval-games", "2", "--gate-openings", "3"]
    argv += ["--gate-opponents", "greedy", "--labels"]  # none: Sungka's in test_practice.py
    shipped = tmp_path / "models" / "sungka" / "nn1h128.keras"
    shipped.parent.mkdir(parents=True)
    shipped.write_bytes(network("nn1h128", game="sungka").path.read_bytes())
    assert main_job.main(argv) == 0
    first, second = _gates(tmp_path)
    assert first["games"] == second["games"] == 6  # 3 openings, both seats, Sungka games
    network("nn1h128", shipped, "sungka").load()
    assert not (tmp_path / "models" / "kalah").exists()
    assert "teacher minimax:2" in capsys.readouterr().out


@pytest.mark.slow
def test_random_train_trains_and_gates_a_tak_network(tmp_path, capsys):
    """--variant tak: Tak games recorded and valued by the Tak teacher, each candidate
    meets the Tak weights in 5x5 games; a network without a Tak
    encoder is refused before anything runs. (Each encoder of a Tak network trains, saves
    and plays in tests/nn_lib/test_networks.py.)"""
    from mancala.arena.records import GameLog
    from mancala.commands import train as main_job

    argv = ["nn2h80", "greedy", "--variant", "tak", "--run", str(tmp_path / "run")]
    argv += ["--models", str(tmp_path / "models"), "--batches", "1", "--games", "4"]
    argv += ["--per-pairing", "2", "--teacher", "2", "--eval-games", "1", "--gate-openings", "1"]
    shipped = tmp_path / "models" / "tak" / "nn2h80.keras"
    shipped.parent.mkdir(parents=True)
    shipped.write_bytes(network("nn2h80", game="tak").path.read_bytes())
    assert main_job.main(argv) == 0
    games = list(GameLog([tmp_path / "run" / "games.jsonl"]))
    assert len(games) == 4 and all(g["variant"] == "tak" and g["values"] for g in games)
    assert "teacher minimax:2" in capsys.readouterr().out
    assert main_job.main([*argv, "--resume"]) == 0  # the run goes on: its second batch
    out = capsys.readouterr().out
    assert "nn2h80: weights from " + str(tmp_path / "run" / "candidates") in out
    assert "4 annotated game(s)" in out and "batch 1: 4 games recorded (8 in all" in out
    decisions = _gates(tmp_path)
    assert [d["network"] for d in decisions] == ["nn2h80"] * 2
    assert decisions[0]["games"] == decisions[1]["games"] == 2  # 1 opening, both seats
    assert set(decisions[1]["against"]) == {"greedy", "minimax:2"}  # Tak's gate opponents
    network("nn2h80", tmp_path / "models" / "tak" / "nn2h80.keras", "tak").load()
    assert main_job.main(["nnx2h256", "greedy", "--variant", "tak"]) == 2
    assert "network nnx2h256 does not play tak" in capsys.readouterr().err


def test_promote_gates_a_network_trained_by_hand(tmp_path, capsys):
    """promote.py: an untrained candidate is refused and the shipped file left byte for
    byte; the same weights pass and the file they replace is kept; each decision is
    recorded beside the candidates."""
    from mancala.commands import promote

    shipped = network("nn1h128").path.read_bytes()
    models = tmp_path / "models"
    (models / "kalah").mkdir(parents=True)
    (models / "kalah" / "nn1h128.keras").write_bytes(shipped)
    mine = tmp_path / "mine"
    network("nn1h128", mine / "kalah" / "nn1h128.keras").fresh(seed=3).save()
    argv = [str(mine), "nn1h128", "--models", str(models), "--gate-openings", "20"]
    argv += ["--gate-opponents", "greedy"]
    assert promote.main(argv) == 0
    assert "gate nn1h128: kept the current weights" in capsys.readouterr().out
    assert (models / "kalah" / "nn1h128.keras").read_bytes() == shipped
    (mine / "kalah" / "nn1h128.keras").write_bytes(shipped)
    assert promote.main(argv) == 0
    assert "gate nn1h128: promoted to" in capsys.readouterr().out
    first, second = (json.loads(line) for line in (mine / "gates.jsonl").read_text().splitlines())
    assert not first["promoted"] and second["promoted"]
    kept = tmp_path / second["kept"]
    assert kept.parent == models / "replaced" / "kalah" and kept.read_bytes() == shipped
    assert promote.main([str(tmp_path / "none"), "nn1h128", "--models", str(models)]) == 2
    assert "promote: no weights at" in capsys.readouterr().err


def test_first_weights_are_gated_against_random_play(tmp_path):
    """Where there are no weights to replace, untrained weights are refused (they keep the
    value no more often than random play) and trained ones installed."""
    from mancala.learn.promotion import gate_positions, offer, zoo_candidate

    models, decisions = tmp_path / "models", []
    solved = gate_positions("kalah")[:600]

    def gated(net) -> str:
        candidate = zoo_candidate(net, models, ["greedy"], 4, 0, solved)
        return offer(candidate, lambda _, d: decisions.append(d))

    untrained = network("nn1h128", tmp_path / "mine" / "nn1h128.keras").fresh(seed=3)
    untrained.save()
    assert "kept the current weights" in gated(untrained)
    assert not decisions[0]["promoted"] and "against random play (luck)" in decisions[0]["reason"]
    assert not (models / "kalah" / "nn1h128.keras").exists()
    trained = network("nn1h128", tmp_path / "mine" / "nn1h128.keras")
    trained.path.write_bytes(network("nn1h128").path.read_bytes())
    assert "promoted to" in gated(trained.load())
    assert decisions[1]["promoted"] and decisions[1]["games"] == 8  # both seats of 4
    network("nn1h128", models / "kalah" / "nn1h128.keras").load()


@pytest.mark.slow
def test_promote_gates_an_az_net_by_its_search(tmp_path, capsys, monkeypatch):
    """An untrained policy-value network is refused on the gate's solved set, searched by
    az-solo, before any game; where nothing is to be replaced it is installed. (The first
    300 of the set's positions: an untrained network's loss shows there as well.)"""
    from mancala.commands import promote
    from mancala.learn import promotion
    from mancala.nn_lib.policy_value import PolicyValue, weights_file

    whole_set = promotion.gate_positions
    monkeypatch.setattr(promotion, "gate_positions", lambda *a, **k: whole_set(*a, **k)[:300])

    shipped = weights_file("kalah").read_bytes()
    models = tmp_path / "models"
    (models / "kalah").mkdir(parents=True)
    weights_file("kalah", models).write_bytes(shipped)
    mine = tmp_path / "mine"
    PolicyValue("kalah", weights_file("kalah", mine)).fresh(3).save()
    argv = [str(mine), "az-net", "--models", str(models), "--gate-openings", "2"]
    assert promote.main(argv) == 0
    out = capsys.readouterr().out
    assert "gate az-net (az-solo:1000): kept the current weights" in out
    assert "ahead of them against perfect play" in out  # refused before any game
    assert weights_file("kalah", models).read_bytes() == shipped
    [decision] = [json.loads(line) for line in (mine / "gates.jsonl").read_text().splitlines()]
    assert decision["network"] == "az-net" and not decision["promoted"]
    empty = tmp_path / "empty"
    weights_file("kalah", mine).write_bytes(shipped)  # trained weights: ahead of random play
    argv = [str(mine), "az-net", "--models", str(empty), "--gate-openings", "2"]
    assert promote.main([*argv, "--gate-opponents", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "promoted to" in out and "gated against random play (luck)" in out
    assert weights_file("kalah", empty).read_bytes() == weights_file("kalah", mine).read_bytes()


def test_a_gain_in_one_position_the_set_repeats_is_not_evidence():
    """30 copies of one position kept where the incumbent loses it, the rest alike: plain,
    that is 5.6 standard errors ahead; clustered by position, one position's worth of
    evidence, refused before any game."""
    from mancala.learn.gate import paired

    exact = ([1.0] * 30 + [1.0] * 900 + [0.0] * 70, [0.0] * 30 + [1.0] * 900 + [0.0] * 70)
    groups = ["start"] * 30 + list(range(970))
    gain, plain = paired(*exact)
    assert gain == pytest.approx(0.03) and gain > 5 * plain
    assert paired(*exact, groups)[1] > gain / 2
    one, two = make_player("greedy", seed=1), make_player("greedy", seed=1)
    refused = gate(one, two, [], GameState.new(), openings=2, exact=exact, groups=groups)
    assert not refused.promoted and refused.games == 0
    assert "not 2 standard errors ahead of them against perfect play" in refused.reason


def test_az_solos_figures_on_the_gate_set_are_kept_while_its_weights_file_is_unchanged(tmp_path):
    """The main job gates az-net against the same file batch after batch: the incumbent's
    figures are worked out once per version of the file."""
    import os

    from mancala.ai.az import AZ
    from mancala.learn.promotion import gate_positions, kept_by_file, kept_each
    from mancala.nn_lib.policy_value import PolicyValue

    solved = gate_positions("kalah")[:30]
    path = tmp_path / "az-net.keras"

    def saved(seed: int) -> AZ:
        net = PolicyValue("kalah", path).fresh(seed=seed)
        net.save()
        os.utime(path, ns=(seed, seed))
        return AZ(0, simulations=16, net=net, endgame=False, prove=False)

    first = saved(1)
    kept = kept_by_file(first, path, solved)
    assert kept == kept_each(first, solved) and len(kept) == 30
    assert kept_by_file(None, path, solved) is kept  # not worked out again
    second = saved(2)
    assert kept_by_file(second, path, solved) == kept_each(second, solved)
