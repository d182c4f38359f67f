"""Gumbel AlphaZero's root: the sequential halving schedule, the completed values and the
improved policy, the search that uses them and the self-play records it writes."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala.ai.az import AZ
from mancala.ai.gumbel import (
    C_SCALE,
    C_VISIT,
    chosen_move,
    considered_visits,
    improved_policy,
    mixed_value,
    search_value,
)
from mancala.arena.records import replay
from mancala.game_state import GameState
from mancala.games import new_game
from mancala.learn.az import gumbel_game
from mancala.learn.data import visit_targets
from mancala.nn_lib.meta import meta_path
from mancala.nn_lib.policy_value import AZ_GAMES, PolicyValue, weights_file


@pytest.fixture(scope="module")
def sungka_net(tmp_path_factory):
    net = PolicyValue("sungka", weights_file("sungka", tmp_path_factory.mktemp("m"))).fresh(1)
    net.save()
    return net


@given(st.integers(1, 16), st.integers(1, 400))
def test_sequential_halving_halves_the_moves_and_spends_every_simulation(considered, sims):
    schedule = considered_visits(considered, sims)
    assert len(schedule) == sims
    visits = [0] * considered
    for target in schedule:  # the root always finds a move of the wanted count
        if considered == 1:
            visits[0] += 1
            continue
        move = next(a for a in range(considered) if visits[a] == target)
        visits[move] += 1
    if considered > 2 and sims >= considered * 2:
        visits.sort(reverse=True)
        assert visits[0] - visits[-1] >= 1  # the best were searched more than the worst


@settings(deadline=None)  # the first example compiles the numba function
@given(
    st.lists(st.floats(-1, 1), min_size=2, max_size=7),
    st.lists(st.integers(0, 20), min_size=7, max_size=7),
    st.floats(-1, 1),
)
def test_the_mixed_value_lies_between_the_network_and_the_visited_means(means, counts, value):
    h = len(means)
    means = np.array(means)
    visits = np.array(counts[:h], dtype=np.float64)
    legal = np.ones(h, bool)
    priors = np.full(h, 1 / h)
    mixed = mixed_value(value, priors, visits, means, legal)
    seen = [value] + [m for m, n in zip(means, visits) if n > 0]
    assert min(seen) - 1e-9 <= mixed <= max(seen) + 1e-9
    if not visits.any():
        assert mixed == value


def test_the_mixed_value_weighs_the_visited_means_by_visits_and_priors():
    legal = np.ones(2, bool)
    assert mixed_value(0.5, np.array([0.5, 0.5]), np.zeros(2), np.zeros(2), legal) == 0.5
    visits, means = np.array([3.0, 0.0]), np.array([0.5, 0.0])
    assert mixed_value(0.0, np.array([0.75, 0.25]), visits, means, legal) == 0.375


def test_the_improved_policy_moves_towards_the_better_values():
    priors = np.array([0.25, 0.25, 0.25, 0.25, 0.0])
    legal = np.array([True, True, True, True, False])
    visits = np.array([4.0, 4.0, 0.0, 0.0, 0.0])
    means = np.array([0.8, -0.6, 0.0, 0.0, 0.0])
    policy = improved_policy(0.0, priors, visits, means, legal)
    assert policy.sum() == pytest.approx(1) and policy[4] == 0
    assert policy[0] > 0.25 > policy[1]  # the better visited move gains, the worse loses
    assert policy[2] == pytest.approx(policy[3])  # unvisited moves share the mixed value
    # the weights of the paper: (C_VISIT + most visits) * C_SCALE times the rescaled values
    ratio = policy[0] / policy[1]
    assert ratio == pytest.approx(np.exp((C_VISIT + 4) * C_SCALE * 1.0))
    gumbel = np.array([0.0, 5.0, 0.0, 0.0, 0.0])  # noise cannot pick a less visited move
    assert chosen_move(gumbel, 0.0, priors, visits, means, legal) in (0, 1)


def test_the_search_value_follows_the_improved_policy_not_the_dropped_moves_visits():
    """Sequential halving spent 30 simulations on a move it dropped (mean -0.9) and 10 on
    the one it keeps (0.7): the average of the simulations says about -0.5, the search
    value is near the kept move's."""
    priors = np.array([0.5, 0.5])
    legal = np.array([True, True])
    visits, means = np.array([30.0, 10.0]), np.array([-0.9, 0.7])
    averaged = (0.0 + (visits * means).sum()) / (1 + visits.sum())
    value = search_value(0.0, priors, visits, means, legal)
    assert averaged < -0.4 and value > 0.69
    policy = improved_policy(0.0, priors, visits, means, legal)
    assert value == pytest.approx(policy @ means)


def test_a_gumbel_search_spends_its_simulations_on_legal_moves(sungka_net):
    az = AZ(0, simulations=48, net=sungka_net, endgame=False)
    rng = np.random.default_rng(3)
    state = GameState.new("sungka").play(0)
    legal = state.legal_moves()
    for _ in range(5):
        move, policy, visits, value = az.gumbel_search(state, rng)
        assert move in legal and visits.sum() == 48
        assert policy.sum() == pytest.approx(1) and policy[visits == 0].max() < 0.5
        assert visits[move] == visits.max()  # the survivor of the halving
        assert not visits[[m for m in range(7) if m not in legal]].any()
        assert (visits > 0).sum() >= 2  # more than one move was looked at


def test_a_gumbel_self_play_record_trains_on_its_full_searches_only(sungka_net):
    az = AZ(0, simulations=32, net=sungka_net, endgame=False)
    record = gumbel_game(az, GameState.new("sungka"), seed=4, fast=8, full_share=0.5)
    record = json.loads(json.dumps(record))
    states = replay(record)[:-1]
    full = [k for k, row in enumerate(record["policy"]) if row is not None]
    assert 0 < len(full) < len(states) == len(record["visits"])
    for k, counts in enumerate(record["visits"]):
        assert sum(counts) == (32 if k in full else 8)
    rel, policy, mask, value = visit_targets(record, 2.0)
    assert len(policy) == len(full)
    assert np.allclose(policy.sum(1), 1) and not policy[~mask].any()
    bad = json.loads(json.dumps(record))
    row = bad["policy"][full[0]]
    bad["policy"][full[0]] = [p * 2 for p in row]
    with pytest.raises(ValueError, match="distribution over the legal moves"):
        visit_targets(bad, 2.0)
    bad["policy"] = bad["policy"][:-1]
    with pytest.raises(ValueError, match="policy does not match"):
        visit_targets(bad, 2.0)


def test_a_tak_gumbel_game_keeps_one_probability_a_legal_move(tmp_path):
    net = PolicyValue("tak", weights_file("tak", tmp_path)).fresh(1)
    start = new_game("tak", **AZ_GAMES["tak"])
    record = gumbel_game(AZ(0, simulations=24, net=net), start, seed=1, fast=6, full_share=0.5)
    record = json.loads(json.dumps(record))
    states = replay(record)[:-1]
    for state, row, counts in zip(states, record["policy"], record["visits"]):
        assert len(counts) == len(state.legal_moves())
        assert row is None or (len(row) == len(counts) and abs(sum(row) - 1) < 1e-3)
    assert all(-1 <= q <= 1 for q in record["q"])
    _, policy, mask, value = visit_targets(record, 2.0, search_value=0.5)
    assert np.allclose(policy.sum(1), 1) and not policy[~mask].any()
    assert len(value) == sum(row is not None for row in record["policy"])
    assert np.abs(value).max() <= 1


@pytest.mark.slow
def test_selfplay_learns_from_scratch_by_gumbel_self_play(tmp_path, lab_main):
    models = tmp_path / "models"
    where = ["--runs", str(tmp_path / "runs"), "--models", str(models)]
    tiny = ["--simulations", "16", "--games", "2", "--gate-openings", "1", "--eval", "0"]
    result = lab_main(
        "selfplay", "--scratch", "--rounds", "2", "--search-value", "0.5", *tiny,
        "--fast-simulations", "4", "--full-share", "0.5", "--run", "s", *where,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    run = tmp_path / "runs" / "s"
    gates = [json.loads(line) for line in (run / "gates.jsonl").open()]
    assert [g["round"] for g in gates] == [0, 1, 2] and gates[0]["promoted"]
    assert "in 1 game pairs" in gates[1]["reason"]  # one pair: its error is unbounded
    assert "not 2 standard errors ahead of even" in gates[1]["reason"] and not gates[1]["promoted"]
    records = [json.loads(line) for line in (run / "games.jsonl").open()]
    assert len(records) == 4 and all(r["players"][0] == "az:16+gumbel/4" for r in records)
    assert all(len(r["policy"]) == len(r["q"]) == len(r["moves"]) for r in records)
    candidate = run / "candidates" / "az-net-kalah.keras"
    teacher = json.loads(meta_path(candidate).read_text())["teacher"]
    assert "gumbel root" in teacher and "candidate" in teacher
    result = lab_main("selfplay", "--scratch", "--resume", "--run", "s", *where)
    assert result.returncode == 2 and "--scratch starts a new run" in result.stderr
    result = lab_main("selfplay", "--scratch", "--from", "x.jsonl", "--run", "t", *where)
    assert result.returncode == 2 and "one way to start a run" in result.stderr


@pytest.mark.slow
def test_the_generations_of_a_run_are_measured_against_anchors_and_the_first(tmp_path, lab_main):
    models = tmp_path / "models"
    where = ["--runs", str(tmp_path / "runs"), "--models", str(models), "--variant", "sungka"]
    tiny = ["--simulations", "8", "--games", "2", "--gate-openings", "1", "--eval", "0"]
    result = lab_main(
        "selfplay", "--scratch", "--rounds", "1", "--margin", "0.5", *tiny, "--run", "g",
        *where,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    run = tmp_path / "runs" / "g"
    gates = [json.loads(line) for line in (run / "gates.jsonl").open()]
    files = sorted((run / "generations").glob("*.keras"))
    assert len(files) == sum(g["promoted"] for g in gates) >= 1
    assert [g["round"] for g in gates] == [0, 1]
    measure = ["--measure", "2", "--anchors", "greedy,luck", "--simulations", "8"]
    result = lab_main("selfplay", *measure, "--run", "g", *where)
    assert result.returncode == 0, result.stderr
    assert "| generation | against greedy | against luck |" in result.stdout
    curve = json.loads((run / "generations.json").read_text())
    assert curve["set"] == "sungka-a" and curve["simulations"] == 8
    assert [p["generation"] for p in curve["points"]] == list(range(len(files)))
    for point in curve["points"]:
        opponents = {"greedy", "luck"} | ({"generation 0"} if point["generation"] else set())
        assert set(point["against"]) == opponents
        assert all(sum(a["pentanomial"]) == a["pairs"] == 2 for a in point["against"].values())
    assert (run / "generations.png").stat().st_size > 0
    result = lab_main("selfplay", "--measure", "2", "--anchors", "nobody", *where)
    assert result.returncode == 2 and "unknown player 'nobody'" in result.stderr
    result = lab_main("selfplay", "--measure", "2", *where)
    assert result.returncode == 2 and "--measure measures a run" in result.stderr
