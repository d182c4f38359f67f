"""The main job's refit: it stops at Ctrl+C or SIGTERM after the batch under way, and
never draws copies of its examples."""

from __future__ import annotations

import itertools
import signal

import pytest

from mancala.core.paths import DATA_DIR
from mancala.core.stopping import Terminated, sigterm_as_interrupt
from mancala.learn.labels import labelled
from mancala.learn.practice import Practice
from mancala.nn_lib.zoo import network

LABELS = DATA_DIR / "kalah" / "kalah-h6-s4-labels-seed0.jsonl.xz"


def practice_with(tmp_path, games: int) -> Practice:
    practice = Practice(tmp_path / "games.jsonl")
    practice.store.add(itertools.islice(labelled([LABELS]), games))
    return practice


def test_a_signal_ends_the_refit_after_its_batch_and_keeps_the_saved_weights(tmp_path):
    practice = practice_with(tmp_path, 40)
    net = network("nn1h128", tmp_path / "nn1h128.keras").fresh(seed=1)
    net.save()
    before = net.path.read_bytes()
    real, asked = net.fit, []

    def fit_then_terminated(*args, stop, **options):
        signal.raise_signal(signal.SIGTERM)  # held by the refit until the fit has ended

        def counted() -> bool:
            asked.append(stop())
            return asked[-1]

        return real(*args, stop=counted, **options)

    net.fit = fit_then_terminated
    with pytest.raises(Terminated), sigterm_as_interrupt():
        practice.refit(net, sample=len(practice.store), epochs=5, batch_size=16)
    assert asked == [True]  # one batch of the hundreds asked for, then the end
    assert net.path.read_bytes() == before  # the cut fit was not saved


def test_a_sample_beyond_the_store_takes_each_example_once_and_says_so(tmp_path):
    practice = practice_with(tmp_path, 5)
    net = network("nn1h128", tmp_path / "nn1h128.keras").fresh(seed=1)
    real, rows, lines = net.fit, [], []

    def fit(examples, *rest, **options):
        rows.append(len(examples))
        return real(examples, *rest, **options)

    net.fit = fit
    practice.refit(net, sample=100_000, epochs=1, progress=lines.append)
    assert rows == [len(practice.store)] and 0 < len(practice.store) < 1000
    assert lines[0] == (
        f"takes all {len(practice.store):,} examples recorded, fewer than --sample's 100,000"
    )
    network("nn1h128", net.path).load()  # fitted and saved


ON_WORKERS = ["nn1h128", "greedy", "minimax:2", "--games", "8", "--per-pairing", "2"]
ON_WORKERS += ["--teacher", "2", "--exact-nodes", "0", "--labels", "--eval-games", "2"]
ON_WORKERS += ["--sample", "2000", "--gate-every", "9", "--gate-openings", "4"]
ON_WORKERS += ["--gate-opponents", "greedy"]


@pytest.fixture(scope="module")
def on_workers(tmp_path_factory):
    """One refitting run of three batches on 2 Ray workers (the next batch played during
    the refits), gated after its last batch alone: its folder. The tests below read it;
    Ray starts once for them."""
    from mancala.commands.train import main

    folder = tmp_path_factory.mktemp("on-workers")
    argv = ["--run", str(folder / "run"), "--models", str(folder / "models"), "--batches", "3"]
    assert main([*ON_WORKERS, *argv, "--workers", "2"]) == 0
    return folder / "run"


@pytest.mark.ray
@pytest.mark.slow
def test_on_workers_the_next_batch_is_played_during_the_refits_by_the_weights_before_them(
    on_workers, tmp_path, capsys
):
    """The first two batches of a refitting run on 2 workers are the games of a run that
    refits nothing (the second batch was handed out before the first refit; the records do
    not depend on the workers, tests/arena/test_parallel.py), each batch's line and curve
    point say how busy the workers were, and a gated batch's point which networks the gate
    promoted."""
    import json

    from mancala.arena.records import GameLog
    from mancala.commands.train import main

    def same(records) -> list[dict]:
        kept = [{k: r[k] for k in ("players", "moves", "seed")} for r in records]
        return sorted(kept, key=lambda r: r["seed"])

    still = ["--run", str(tmp_path / "still"), "--batches", "2", "--record-only"]
    assert main([*ON_WORKERS, *still, "--models", str(tmp_path / "models")]) == 0
    assert "workers busy" in capsys.readouterr().out
    kept = same(GameLog([tmp_path / "still" / "games.jsonl"]))
    assert len(kept) == 16
    ahead = list(GameLog([on_workers / "games.jsonl"]))  # in the order the batches ended
    assert same(ahead[:16]) == kept
    points = json.loads((on_workers / "curve.json").read_text())
    assert [p["batch"] for p in points] == [1, 2, 3] and all(0 < p["busy"] <= 1 for p in points)
    assert "workers busy" in (on_workers / "log.txt").read_text()
    gates = [json.loads(line) for line in (on_workers / "gates.jsonl").read_text().splitlines()]
    assert "promoted" not in points[0] and "promoted" not in points[1]  # no gate after them
    assert points[2]["promoted"] == [g["network"] for g in gates if g["promoted"]]


@pytest.mark.ray
@pytest.mark.slow
def test_on_workers_a_batch_played_during_the_refits_is_as_long_as_they_were(on_workers):
    """The third batch (the first handed out once a refit has been timed) has the size
    the second batch's line announced, sized by `games_to_fill`; never fewer than --games."""
    import re

    from mancala.arena.records import GameLog

    log = (on_workers / "log.txt").read_text()
    sizes = [int(n) for n in re.findall(r"next batch (\d+) games", log)]
    assert len(sizes) == 2 and sizes[0] == 8 and sizes[1] >= 8
    assert len(list(GameLog([on_workers / "games.jsonl"]))) == 8 + 8 + sizes[1]


def test_a_resumed_run_goes_on_with_games_it_has_not_played(tmp_path):
    """--resume plays new games, not the run's first ones again (the same --seed)."""
    from mancala.arena.records import GameLog
    from mancala.commands.train import main

    argv = ["luck", "greedy", "--record-only", "--run", str(tmp_path / "run"), "--batches"]
    argv += ["1", "--games", "4", "--per-pairing", "2", "--teacher", "1", "--exact-nodes", "0"]
    assert main(argv) == 0
    assert main([*argv, "--resume"]) == 0
    seeds = [record["seed"] for record in GameLog([tmp_path / "run" / "games.jsonl"])]
    assert len(seeds) == 8 and len(set(seeds)) == 8


def test_sungka_labels_ship_and_the_refits_read_every_labelled_position(tmp_path):
    """Sungka has no solver: its shipped labels (a deep alpha-beta's, their command in
    the header) all go into the store, where Kalah's would keep the exact ones alone."""
    import json

    from mancala.games import new_game
    from mancala.learn.data import record_positions
    from mancala.learn.labels import read_header, shipped_labels

    start = new_game("sungka")
    shipped = shipped_labels(start)
    assert shipped and all(read_header(path)["command"].startswith("mancala ") for path in shipped)
    records = list(itertools.islice(labelled(shipped[:1]), 20))
    assert not any(any(record["exact"]) for record in records)
    small = tmp_path / "labels.jsonl"
    small.write_text("".join(json.dumps(record) + "\n" for record in records))
    practice = Practice(tmp_path / "games.jsonl", start=start, labels=[small])
    assert practice.store.seen == sum(len(record_positions(r)[0]) for r in records) > 0


@pytest.mark.slow
def test_az_net_is_refit_and_gated_in_the_main_job_beside_the_zoo_but_plays_no_game(
    tmp_path, monkeypatch
):
    """Named among the players, az-net learns from the run's labelled positions (its
    candidate saved in the run), each batch measures it alone, its gate plays it as az
    without the solver's help, and no game has it at the table. (The first 300 of the
    gate's solved positions: az-net alone and az-solo meet them one position at a time.)"""
    import json

    from mancala.arena.records import GameLog
    from mancala.commands.train import main
    from mancala.learn import main_job
    from mancala.nn_lib.policy_value import PolicyValue

    whole_set = main_job.gate_positions
    monkeypatch.setattr(main_job, "gate_positions", lambda *a, **k: whole_set(*a, **k)[:300])

    argv = ["az-net", "nn1h128", "greedy", "--run", str(tmp_path / "run"), "--models"]
    argv += [str(tmp_path / "models"), "--batches", "1", "--games", "4", "--per-pairing", "2"]
    argv += ["--teacher", "1", "--exact-nodes", "0", "--labels", "--eval-games", "1"]
    assert main([*argv, "--gate-openings", "2", "--gate-opponents", "greedy"]) == 0
    players = {
        name for record in GameLog([tmp_path / "run" / "games.jsonl"]) for name in record["players"]
    }
    assert players == {"nn1h128", "greedy"}
    candidate = tmp_path / "run" / "candidates" / "kalah" / "az-net.keras"
    assert PolicyValue("kalah", candidate).load().model is not None
    point = json.loads((tmp_path / "run" / "curve.json").read_text())[-1]
    assert set(point["kept"]) == set(point["loss"]) == {"az-net", "nn1h128"}
    gates = [
        json.loads(line) for line in (tmp_path / "run" / "gates.jsonl").read_text().splitlines()
    ]
    assert {g["network"]: g.get("player") for g in gates} == {
        "az-net": "az-solo:1000",
        "nn1h128": None,
    }


@pytest.mark.parametrize(
    "argv",
    [["az-net", "greedy"], ["az-net", "luck", "greedy", "--variant", "tak"]],
    ids=["no-second-player", "tak"],
)
def test_az_net_in_the_main_job_is_refused_where_it_cannot_learn(argv, tmp_path, capsys):
    from mancala.commands.train import main

    assert main([*argv, "--run", str(tmp_path / "run")]) == 2
    assert "az-net" in capsys.readouterr().err


@pytest.mark.slow
def test_az_nets_refit_ends_after_the_batch_during_which_it_was_asked_to_stop(tmp_path):
    from mancala.learn.learner import PolicyValueLearner
    from mancala.nn_lib.policy_value import PolicyValue

    practice = practice_with(tmp_path, 40)
    learner = PolicyValueLearner(PolicyValue("kalah", tmp_path / "az-net.keras").fresh(seed=1))
    asked: list[bool] = []

    def stop() -> bool:
        asked.append(True)
        return True

    examples = practice.store.sample(len(practice.store), practice.np_rng)
    learner.fit(*examples, epochs=5, batch_size=16, stop=stop)
    assert len(practice.store) > 16 * 5 and asked == [True]  # one batch of many asked for


def test_az_labels_follow_the_network_file_as_it_is_when_a_batch_is_handed_out(tmp_path):
    """With an az teacher and `teacher_weights`, a batch's labels are those of the network
    in the file then; a file replaced (a promotion) labels the next batch."""
    import os

    from mancala.arena.parallel import Seat
    from mancala.learn.teacher import Teacher
    from mancala.nn_lib.policy_value import PolicyValue

    path = tmp_path / "models" / "kalah" / "az-net.keras"
    path.parent.mkdir(parents=True)
    practice = Practice(
        tmp_path / "games.jsonl", 0, teacher_simulations=32, exact_nodes=0, teacher_weights=path
    )
    pairing = [(Seat("greedy"), Seat("luck"))]
    for seed in (3, 4):
        PolicyValue("kalah", path).fresh(seed=seed).save()
        os.utime(path, ns=(seed, seed))  # a new stamp even within the clock's resolution
        record = practice.play(pairing, 1)[0]
        labelled = Teacher(0, 0, simulations=32, weights=str(path)).annotate(dict(record))
        assert record["values"] == labelled["values"]
    shipped = Teacher(0, 0, simulations=32).annotate(dict(record))
    assert record["values"] != shipped["values"]


def test_with_exact_games_the_runs_own_positions_are_kept_where_proved_exact_alone(tmp_path):
    from mancala.learn.data import record_positions

    records = list(itertools.islice(labelled([LABELS]), 30))
    kept = [[record_positions(record, only) for record in records] for only in (False, True)]
    count = [sum(len(arrays[0]) for arrays in each if arrays is not None) for each in kept]
    assert 0 < count[1] < count[0]  # the file holds positions of both kinds
    for exact, expected in ((False, count[0]), (True, count[1])):
        practice = Practice(tmp_path / f"{exact}.jsonl", exact_games=exact)
        practice.store.add(records)
        assert practice.store.seen == expected
