"""Tak's alpha-beta evaluation fitted to its deeper searches (mancala.learn.tak_fit),
its weights file, and its gate."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mancala.ai import make_player
from mancala.arena.records import GameLog
from mancala.games.tak import new_tak
from mancala.games.tak.evaluate import (
    HAND_WEIGHTS,
    WEIGHT_NAMES,
    fitted_weights,
    read_weights,
    save_weights,
    weights_file,
    weights_of,
)
from mancala.learn.promotion import offer, record_to
from mancala.learn.tak_fit import evaluation_candidate


def test_a_file_that_is_not_weights_is_refused_with_its_path(tmp_path):
    path = tmp_path / "evaluation-5.json"
    for text in (
        "{not json",
        json.dumps({"weights": [1.0] * len(WEIGHT_NAMES)}),  # no names
        json.dumps({"weights": dict.fromkeys(reversed(WEIGHT_NAMES), 0.0)}),
        json.dumps({"weights": dict.fromkeys(WEIGHT_NAMES, 0.1)}),  # not a multiple of 1/32
    ):
        path.write_text(text)
        with pytest.raises(ValueError, match="evaluation-5.json"):
            read_weights(path)
    save_weights(path, HAND_WEIGHTS * 2, {"size": 5})
    assert (read_weights(path) == HAND_WEIGHTS * 2).all()


def test_minimax_takes_the_fitted_or_the_hand_set_weights():
    """A board without a fitted file is valued by the hand-set weights either way; a
    misspelt evaluation is refused when the player is made."""
    assert fitted_weights(8) is HAND_WEIGHTS
    assert weights_of("hand", 5) is HAND_WEIGHTS
    hand = make_player("minimax:2,evaluation=hand", seed=0)
    assert hand.evaluation == "hand" and hand.choose_move(new_tak(4)) in new_tak(4).legal_moves()
    with pytest.raises(ValueError, match="evaluation=fitted|hand"):
        make_player("minimax:2,evaluation=deep")


@pytest.mark.slow
def test_the_fit_labels_refits_and_writes_weights_the_search_reads(lab_main, tmp_path):
    games = tmp_path / "games.jsonl"
    argv = ["1", "minimax:2", "greedy", "--variant", "tak", "--plies", "2", "--seed", "3"]
    assert lab_main("tournament", *argv, "--record", str(games), "--workers", "1").returncode == 0
    assert len(list(GameLog([games]))) == 2
    fit = ["evaluation", str(games), "--positions", "60", "--depth", "2", "--rounds", "2"]
    done = lab_main("fit", *fit, "--models", str(tmp_path / "fit"), "--hand")
    assert done.returncode == 0, done.stderr
    assert "round 2:" in done.stdout and "held-out squared error" in done.stdout
    saved = json.loads(weights_file(5, tmp_path / "fit").read_text())
    assert len(saved["rounds"]) == 2 and saved["command"].startswith("mancala fit evaluation")
    # labels in flats: no found road (WIN_VALUE) or road in one (FORCED) among them
    assert all(0 <= error < 100 for line in saved["rounds"] for error in line["error"])
    weights = read_weights(weights_file(5, tmp_path / "fit"))
    assert not np.array_equal(weights, HAND_WEIGHTS)  # two rounds moved them
    assert (weights[13:16] == 0).all()  # groups of up to two ranks stay nothing
    again = lab_main("fit", *fit, "--models", str(tmp_path / "fit"), "--hand")
    assert again.returncode == 2 and "holds a fit already: --resume" in again.stderr
    other = lab_main(
        "fit", *fit, "--models", str(tmp_path / "fit"), "--hand", "--resume", "--seed", "1"
    )
    assert other.returncode == 2 and "holds the work of other settings" in other.stderr
    assert json.loads(weights_file(5, tmp_path / "fit").read_text()) == saved  # untouched
    more = [*fit[:-1], "3", "--models", str(tmp_path / "fit"), "--hand", "--resume"]
    resumed = lab_main("fit", *more)
    assert resumed.returncode == 0, resumed.stderr
    assert "2 round(s) done" in resumed.stdout and "round 3:" in resumed.stdout
    assert "round 2:" not in resumed.stdout
    rounds = json.loads(weights_file(5, tmp_path / "fit").read_text())["rounds"]
    assert rounds[:2] == saved["rounds"] and len(rounds) == 3
    (tmp_path / "fit" / "tak" / "evaluation-5-rounds" / "round-0003.json").write_text("{cut sh")
    damaged = lab_main("fit", *more)
    assert damaged.returncode == 2 and "round-0003.json is not an evaluation's weights" in (
        damaged.stderr
    )
    missing = lab_main("fit", "evaluation", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


@pytest.mark.slow
def test_the_gate_promotes_stronger_weights_and_keeps_the_file_they_replace(tmp_path, capsys):
    """Blind weights (every position of a game going on worth nothing) ship; the hand-set
    ones beat them in game pairs and replace them, the blind file kept; weaker weights
    against those are refused and change nothing."""
    models, mine, record = tmp_path / "models", tmp_path / "mine", record_to(tmp_path / "g.jsonl")
    blind = np.zeros_like(HAND_WEIGHTS)
    save_weights(weights_file(5, models), blind, {})
    save_weights(weights_file(5, mine), HAND_WEIGHTS, {})
    line = offer(evaluation_candidate(mine, models, 5, 6, 0, seconds=0.005), record)
    assert "promoted to" in line and "against the shipped weights in 6 game pairs" in line
    shown = capsys.readouterr().err  # the moves as they are played, and the games over
    assert "12/12 games" in shown and "move/s" in shown
    assert (read_weights(weights_file(5, models)) == HAND_WEIGHTS).all()
    [kept] = (models / "replaced" / "tak").iterdir()
    assert (read_weights(kept) == blind).all()
    save_weights(weights_file(5, mine), blind, {})
    line = offer(evaluation_candidate(mine, models, 5, 6, 0, seconds=0.005), record)
    assert "kept the current weights" in line
    assert (read_weights(weights_file(5, models)) == HAND_WEIGHTS).all()
    decisions = [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert [d["promoted"] for d in decisions] == [True, False]
    assert all(d["network"] == "evaluation-5" and d["pairs"] == 6 for d in decisions)


@pytest.mark.parametrize("name", ["evaluation", "guide"])
def test_promote_gates_evaluations_and_guides_of_tak_only(lab_main, tmp_path, name):
    refused = lab_main("promote", str(tmp_path), name)
    assert refused.returncode == 2 and f"{name} is Tak's: --variant tak" in refused.stderr
    none = lab_main("promote", str(tmp_path), name, "--variant", "tak")
    assert none.returncode == 2 and f"no {name} weights in {tmp_path / 'tak'}" in none.stderr
