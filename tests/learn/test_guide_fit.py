"""az's Tak guide (mancala.games.tak.guide): its search against the readable evaluation,
its file, its fit to the alpha-beta's values of every move (mancala.learn.tak_fit) and
its gate."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from mancala.ai import puct
from mancala.ai.az import AZ, AZNet, shipped_network
from mancala.arena.match import GAME_PLIES, play_games, ply_limit
from mancala.arena.records import GameLog, replay
from mancala.games.tak import kernel as tak_kernel
from mancala.games.tak import new_tak
from mancala.games.tak.evaluate import FORCED, WEIGHT_NAMES, fitted_weights, terms, value
from mancala.games.tak.fast import to_arrays
from mancala.games.tak.guide import GuideWeights, guide_file, guided_boards, read_guide, write_guide
from mancala.games.tak.labels import _after_terms
from mancala.games.tak.state import TakState, from_tps
from mancala.learn.linear_fit import CrossEntropy, MoveRows, best_first, targets
from mancala.learn.promotion import offer, record_to
from mancala.learn.tak_fit import guide_candidate, self_play_rows
from mancala.nn_lib.policy_value import Guide, trained_games

TAK = TakState.game
ROAD_IN_ONE = "2,2,2,x2/x5/x5/x5/1,1,1,1,x 1 5"  # white to move: e1 (or Ce1) makes a road
POSITIONS = [  # a quiet middle game, and one where black must block a road in one
    "x5/x2,2S,x2/x2,121,x2/x5/x5 1 4",
    "2,2,x3/x5/x5/x5/x,1,1,1,1 2 5",
]


def guide(size: int = 5, sharpness: float = 2.0, scale: float = 5.0) -> Guide:
    weights = fitted_weights(size)
    return Guide(TAK, {"size": size}, GuideWeights(weights, weights * sharpness, scale))


@pytest.mark.parametrize("tps", POSITIONS)
def test_the_guides_priors_and_value_are_the_readable_evaluations(tps):
    """The kernel's prior of each move is the softmax of the worth, by the policy weights,
    of the position it leads to for its mover; its value the squashed evaluation."""
    state, net = from_tps(tps), guide()
    moves, priors, got = puct.policy(tak_kernel.kernel(state, net.arrays))
    weights = net.arrays
    worth = np.array([-value(state.play(m), weights.policy) for m in moves])
    want = np.exp(worth - worth.max()) / np.exp(worth - worth.max()).sum()
    assert moves == state.legal_moves()
    np.testing.assert_allclose(priors, want, rtol=1e-9, atol=1e-12)
    assert got == pytest.approx(math.tanh(value(state, weights.value) / weights.scale))


def test_a_move_that_leaves_the_other_player_a_road_in_one_gets_no_prior():
    state = from_tps(POSITIONS[1])  # black to move; white has a road in one
    moves, priors, _ = puct.policy(tak_kernel.kernel(state, guide().arrays))
    leaves = [value(state.play(m)) == FORCED for m in moves]
    assert 0 < sum(leaves) < len(moves)  # the moves that do not block, and those that do
    assert max(p for p, left in zip(priors, leaves, strict=True) if left) < 1e-100


def test_az_with_a_guide_takes_a_road_in_one_and_plays_whole_games():
    state = from_tps(ROAD_IN_ONE)
    winning = {state.parse_move("e1"), state.parse_move("Ce1")}
    net = guide()
    az, az_net = AZ(0, simulations=300, net=net), AZNet(net=net)
    assert az.choose_move(state) in winning and az_net.choose_move(state) in winning
    assert az.evaluate(state)["value"] == 1.0
    for seats in ([az, az_net], [az_net, az]):  # an illegal move raises IllegalMove
        (record,) = play_games(seats, [new_tak(5)], max_plies=GAME_PLIES)
        assert len(record["moves"]) > 6


def test_az_plays_the_shipped_guide_of_a_board_where_one_ships():
    shipped = guided_boards()
    assert {"size": 5} in shipped  # the lab ships one for 5x5
    for board in shipped:
        net = shipped_network(TAK, board)
        assert isinstance(net, Guide) and net.options["size"] == board["size"]
        assert (net.arrays.value == fitted_weights(board["size"])).all()  # the evaluation's
        assert {"variant": TAK, **net.options} in trained_games()
    with pytest.raises(ValueError, match=r"trained for tak\(size=5, komi=0\), not tak\(size=4"):
        AZ(0, simulations=10, net=guide()).choose_move(new_tak(4))


@pytest.mark.parametrize("size", [5, pytest.param(6, marks=pytest.mark.slow)])
def test_the_compiled_counts_of_each_moves_position_are_the_readable_terms(size):
    rng = random.Random(size)
    for _ in range(30):
        state = new_tak(size)
        for _ in range(rng.randrange(4, 40)):
            if state.outcome is not None:
                break
            state = state.play(rng.choice(state.legal_moves()))
        if state.outcome is not None:
            continue
        moves = np.array(state.legal_moves(), np.int64)
        rows = np.zeros((len(moves), len(WEIGHT_NAMES)))
        regular = np.zeros(len(moves), np.bool_)
        _after_terms(*to_arrays(state), moves, np.eye(len(WEIGHT_NAMES)), rows, regular)
        for move, row, kept in zip(moves, rows, regular, strict=True):
            after = state.play(int(move))
            want = None if after.outcome else terms(after)
            assert kept == (want is not None)
            if kept:
                np.testing.assert_array_equal(row, want)


def test_a_file_that_is_not_a_guide_is_refused_with_its_path(tmp_path):
    path = tmp_path / "az-guide-5.json"
    policy = dict(zip(WEIGHT_NAMES, [0.5] * len(WEIGHT_NAMES), strict=True))
    for text in (
        "{not json",
        json.dumps({"policy": [0.5] * len(WEIGHT_NAMES), "scale": 5}),  # no names
        json.dumps({"policy": dict(reversed(policy.items())), "scale": 5}),
        json.dumps({"policy": policy}),  # no scale
        json.dumps({"policy": policy, "scale": -1}),
        json.dumps({"policy": {**policy, "TEMPO": "nan"}, "scale": 5}),
    ):
        path.write_text(text)
        with pytest.raises(ValueError, match="az-guide-5.json"):
            read_guide(path, 5)
    write_guide(path, np.arange(len(WEIGHT_NAMES)) / 8, 4.0, {"command": "made here"})
    read = read_guide(path, 5)
    assert (read.policy == np.arange(len(WEIGHT_NAMES)) / 8).all() and read.scale == 4.0
    assert json.loads(path.read_text())["command"] == "made here"


def test_the_fits_measures_on_a_position_by_hand():
    """Two positions of three and two moves: the targets are the softmax of the values,
    and the policy's favourite is a best move in one of the two."""
    rows = np.zeros((5, len(WEIGHT_NAMES)))
    rows[:, 0] = [1.0, 0.0, 2.0, 0.0, 1.0]  # TEMPO's count: worth -count to the mover
    data = MoveRows(rows, np.array([0.0, 1.0, -1.0, 0.0, 2.0]), np.array([0, 0, 0, 1, 1]),
                    np.array([0, 0, 0, 1, 1]))  # fmt: skip
    want = np.exp([0.0, 1.0, -1.0]) / np.exp([0.0, 1.0, -1.0]).sum()
    np.testing.assert_allclose(targets(data, 1.0)[:3], want)
    weights = np.zeros(len(WEIGHT_NAMES))
    weights[0] = 1.0
    # the first position's favourite (row 1) is its best move; the second's is not
    assert best_first(data, weights) == 0.5
    assert CrossEntropy(1.0).loss(data, weights) > 0


@pytest.mark.slow
def test_the_fit_labels_fits_writes_a_guide_and_goes_on_from_its_labels(lab_main, tmp_path):
    games = tmp_path / "games.jsonl"
    argv = ["1", "minimax:2", "greedy", "--variant", "tak", "--plies", "2", "--seed", "3"]
    assert lab_main("tournament", *argv, "--record", str(games), "--workers", "1").returncode == 0
    assert len(list(GameLog([games]))) == 2
    fit = ["guide", str(games), "--positions", "30", "--depth", "2", "--scale", "4"]
    done = lab_main("fit", *fit, "--models", str(tmp_path / "fit"))
    assert done.returncode == 0, done.stderr
    assert "held out" in done.stdout and "cross-entropy" in done.stdout
    path = guide_file(5, tmp_path / "fit")
    saved, made = read_guide(path, 5), json.loads(path.read_text())
    assert saved.scale == 4.0 and made["command"].startswith("mancala fit guide")
    assert not np.allclose(saved.policy, fitted_weights(5) / 0.1)  # the fit moved them
    [labels] = path.parent.glob("az-guide-5-labels-*")
    [chunk] = labels.glob("chunk-*")
    stamp = chunk.stat().st_mtime_ns
    again = lab_main("fit", *fit, "--models", str(tmp_path / "fit"))
    assert again.returncode == 0 and chunk.stat().st_mtime_ns == stamp  # read, not made again
    assert np.allclose(read_guide(path, 5).policy, saved.policy)
    missing = lab_main("fit", "guide", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_a_factor_makes_the_evaluation_times_it_the_policy_with_no_games(lab_main, tmp_path):
    made = lab_main("fit", "guide", "--size", "6", "--factor", "2", "--models", str(tmp_path))
    assert made.returncode == 0, made.stderr
    saved = read_guide(guide_file(6, tmp_path), 6)
    assert np.allclose(saved.policy, 2 * fitted_weights(6)) and saved.scale == 5.0
    both = lab_main("fit", "guide", str(tmp_path / "g.jsonl"), "--factor", "2")
    assert both.returncode == 2 and "take no games" in both.stderr
    neither = lab_main("fit", "guide")
    assert neither.returncode == 2 and "games to label are needed" in neither.stderr


@pytest.mark.slow
def test_self_play_teaches_the_shipped_guide_and_goes_on_from_its_games(lab_main, tmp_path):
    fit = ["guide", "--selfplay", "3", "--simulations", "16", "--models", str(tmp_path)]
    done = lab_main("fit", *fit)
    assert done.returncode == 0, done.stderr
    assert "az-guide-5.json's policy -> the fit" in done.stdout
    path = guide_file(5, tmp_path)
    shipped, saved = read_guide(guide_file(5), 5), read_guide(path, 5)
    assert saved.scale == shipped.scale and not np.allclose(saved.policy, shipped.policy)
    assert json.loads(path.read_text())["command"].startswith("mancala fit guide --selfplay 3")
    [folder] = path.parent.glob("az-guide-5-selfplay-*-g3-n16-s0")
    records = [json.loads(line) for line in (folder / "games.jsonl").open()]
    assert sorted(r["seed"] for r in records) == [0, 1, 2]  # each game kept as it ended
    for record in records:  # played after its 2-ply opening, replayable from the start
        assert record["opening"] == 2 and record["policy"][:2] == [None, None]
        assert all(sum(p) == pytest.approx(1, abs=1e-3) for p in record["policy"][2:])
        assert replay(record)[-1].is_over() or len(record["moves"]) == ply_limit(new_tak(5))
    rows = MoveRows(*self_play_rows(records, 0))  # softmax(values): the improved policy
    shares = np.exp(rows.values)
    assert len(shares) > 0 and np.all(shares <= 1)
    assert np.all(np.bincount(rows.position, shares) <= 1.001)  # the record rounds
    stamp = (folder / "games.jsonl").stat().st_mtime_ns
    again = lab_main("fit", *fit, "--workers", "1")  # nothing left to play
    assert again.returncode == 0 and (folder / "games.jsonl").stat().st_mtime_ns == stamp
    none = lab_main("fit", "guide", "--selfplay", "3", "--size", "4", "--models", str(tmp_path))
    assert none.returncode == 2 and "no guide ships for 4x4" in none.stderr
    scale = lab_main("fit", *fit, "--scale", "3")
    assert scale.returncode == 2 and "--scale cannot change it" in scale.stderr
    both = lab_main("fit", "guide", "--selfplay", "3", "--factor", "2")
    assert both.returncode == 2 and "choose one" in both.stderr


@pytest.mark.slow
def test_the_gate_promotes_a_stronger_guide_and_keeps_the_one_it_replaces(tmp_path):
    """A blind guide (no prior, every position worth nothing to its policy) ships; a
    guide of the evaluation's weights scores more against the anchor on the same
    openings (the scoreboard) and replaces it, the blind file kept; the blind one against
    that is refused and changes nothing. Where no guide or network ships (4x4), a guide
    meets the board's alpha-beta in game pairs."""
    models, mine, record = tmp_path / "models", tmp_path / "mine", record_to(tmp_path / "g.jsonl")
    blind = np.zeros(len(WEIGHT_NAMES))
    write_guide(guide_file(5, models), blind, 1000.0, {})
    write_guide(guide_file(5, mine), fitted_weights(5) * 2, 5.0, {})
    gate = dict(seconds=0.01, anchors=["greedy"])
    line = offer(guide_candidate(mine, models, 5, 8, 0, **gate), record)
    assert "promoted to" in line and "ahead on the score against greedy" in line
    assert "  candidate against incumbent: " in line
    assert read_guide(guide_file(5, models), 5).scale == 5.0
    [kept] = (models / "replaced" / TAK).iterdir()
    assert read_guide(kept, 5).scale == 1000.0
    write_guide(guide_file(5, mine), blind, 1000.0, {})
    line = offer(guide_candidate(mine, models, 5, 2, 0, **gate), record)  # never ahead
    assert "kept the current weights" in line
    assert read_guide(guide_file(5, models), 5).scale == 5.0
    write_guide(guide_file(4, mine), fitted_weights(4) * 2, 5.0, {})
    line = offer(guide_candidate(mine, models, 4, 2, 0, **gate), record)
    assert "against the board's alpha-beta in 2 game pairs" in line
    decisions = [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert [d["promoted"] for d in decisions[:2]] == [True, False]
    assert [d["network"] for d in decisions] == ["az-guide-5", "az-guide-5", "az-guide-4"]
    assert all(d["player"] == "az:t=0.01" for d in decisions)
    assert decisions[0]["opening_set"] == "tak-a" and "paired" in decisions[0]
