"""The scoreboard of a game without solved positions: the candidate and the incumbent
paired opening by opening against the same anchors, and the rule that promotes on it."""

import json

import pytest

from mancala.arena.opening_sets import load_set
from mancala.arena.pairs import Pairs
from mancala.arena.tournament import run_tournament
from mancala.games import new_game
from mancala.learn.scoreboard import Scoreboard, play_scoreboard

OPENINGS = [(i,) for i in range(8)]


def pairs(points: list[list[float]], margins: list[list[float]] | None = None) -> Pairs:
    return Pairs(OPENINGS[: len(points)], points, margins or [[0, 0] for _ in points])


EVEN = pairs([[1, 0]] * 8, [[5, -5]] * 8)  # every pair split, even margins


def test_a_gain_hidden_by_split_pairs_shows_in_the_paired_differences():
    """Both players score near half against the anchor, but on the same openings the
    candidate wins pairs the incumbent only split: promoted."""
    better = pairs([[1, 1]] * 3 + [[1, 0]] * 5, [[5, 1]] * 3 + [[5, -5]] * 5)
    board = Scoreboard(EVEN, {"minimax:4": (better, EVEN)})
    measures = board.measures()
    assert measures["score against minimax:4"][0] == 3 * 0.5 / 8
    promoted, reason = board.verdict(lead=2.0)
    assert promoted, reason
    assert reason.startswith("ahead on the score against minimax:4 (+18.8 ± 9.1 points")


def test_the_rule_refuses_no_gain_a_loss_on_another_measure_and_a_lost_head_to_head():
    same = Scoreboard(EVEN, {"minimax:4": (EVEN, EVEN)})
    assert same.verdict() == (
        False,
        "not 2 standard errors ahead on the score against minimax:4 (+0.0 ± 0.0 points a game)",
    )
    better = pairs([[1, 1]] * 3 + [[1, 0]] * 5, [[5, 1]] * 3 + [[5, -5]] * 5)
    lost_big = [[5, 1]] * 3 + [[2, -30], [1, -20]] * 2 + [[0, -9]]
    crushed = pairs([[1, 1]] * 3 + [[1, 0]] * 5, lost_big)
    behind = Scoreboard(EVEN, {"minimax:4": (better, EVEN), "greedy": (crushed, EVEN)})
    promoted, reason = behind.verdict()
    assert not promoted and reason.endswith("but behind on the margin against greedy")
    lost = Scoreboard(pairs([[0, 0]] * 8), {"minimax:4": (better, EVEN)})
    assert lost.verdict() == (False, "scored 0.0% ± 0.0% against the incumbent")


def test_a_tournament_plays_only_the_pairings_asked_and_keeps_them_opening_by_opening():
    start = new_game("sungka")
    openings = load_set("sungka")["openings"][:3]
    result = run_tournament(
        ["greedy", "luck", "max"], 3, start, openings=openings, progress=False,
        pairings=[("greedy", "luck"), ("greedy", "max")],
    )  # fmt: skip
    assert set(result["pairs"]) == {"greedy vs luck", "greedy vs max"}
    assert result["results"]["luck"]["max"]["games"] == 0
    kept = result["by_opening"]["greedy vs luck"]
    assert kept["index"] == [0, 1, 2] and len(kept["points"]) == len(kept["margins"]) == 3
    json.dumps(result)


def test_the_scoreboard_plays_both_players_against_each_anchor_on_the_same_openings():
    start = new_game("sungka")
    openings = load_set("sungka")["openings"][:4]
    board = play_scoreboard("minimax:2", "luck", ["greedy"], start, openings, progress=False)
    mine, theirs = board.against["greedy"]
    assert mine.openings == theirs.openings == board.head.openings == [tuple(o) for o in openings]
    assert board.head.score() > 0.5  # two plies of search beat random play
    record = board.to_dict()
    assert set(record["paired"]) == {"score against greedy", "margin against greedy"}
    assert record["against"]["greedy"]["candidate"]["pairs"] == 4
    assert set(record["seconds_per_move"]) == {"candidate", "incumbent", "greedy"}


@pytest.mark.slow
def test_promote_gates_a_sungka_az_net_on_the_scoreboard(tmp_path, capsys, monkeypatch):
    """No solved set covers Sungka: `mancala promote DIR az-net --variant sungka` plays
    az on the fixed set beside the shipped network and records the paired measures. An
    untrained network is refused; trained weights where none are shipped beat random play
    and are installed. (A hundredth of a second a move: the rule, not the strength.)"""
    from mancala.commands import promote
    from mancala.learn import promotion
    from mancala.nn_lib.policy_value import PolicyValue, weights_file

    monkeypatch.setattr(promotion, "AZ_SCOREBOARD_SECONDS", 0.01)
    shipped = weights_file("sungka").read_bytes()
    models, mine = tmp_path / "models", tmp_path / "mine"
    weights_file("sungka", models).parent.mkdir(parents=True)
    weights_file("sungka", models).write_bytes(shipped)
    PolicyValue("sungka", weights_file("sungka", mine)).fresh(3).save()
    argv = [str(mine), "az-net", "--variant", "sungka", "--gate-openings", "3"]
    assert promote.main([*argv, "--models", str(models), "--gate-opponents", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "gate az-net (az:t=0.01): kept the current weights" in out
    assert "\n  against greedy: candidate " in out and "\n  paired, score against greedy: " in out
    assert weights_file("sungka", models).read_bytes() == shipped
    [decision] = [json.loads(line) for line in (mine / "gates.jsonl").read_text().splitlines()]
    assert decision["opening_set"] == "sungka-a" and decision["head_to_head"]["pairs"] == 3
    assert set(decision["paired"]) == {"score against greedy", "margin against greedy"}
    weights_file("sungka", mine).write_bytes(shipped)
    empty = tmp_path / "empty"
    assert promote.main([*argv, "--models", str(empty), "--gate-opponents", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "promoted to" in out and "gated against random play (luck)" in out
    assert weights_file("sungka", empty).read_bytes() == shipped


def test_a_damaged_shipped_network_is_named_before_any_game(tmp_path, monkeypatch):
    from mancala.learn import scoreboard
    from mancala.learn.promotion import az_candidate

    def no_games(*_, **__):
        raise AssertionError("the scoreboard's games began")

    monkeypatch.setattr(scoreboard, "play_scoreboard", no_games)
    from mancala.nn_lib.base import WeightsError
    from mancala.nn_lib.policy_value import PolicyValue, weights_file

    models, mine = tmp_path / "models", tmp_path / "mine"
    PolicyValue("sungka", weights_file("sungka", mine)).fresh(3).save()
    weights_file("sungka", models).parent.mkdir(parents=True)
    weights_file("sungka", models).write_bytes(b"not a keras file")
    with pytest.raises(WeightsError, match=str(weights_file("sungka", models))):
        az_candidate(mine, models, "sungka", ["greedy"], 2, 0)
    assert not (tmp_path / "gates.jsonl").exists()


def test_a_game_names_its_main_measure_and_no_other():
    """Sungka's seat decides most games, so its scoreboard promotes on the margin; a
    game line naming a measure the scoreboard has not is refused where it is written,
    and the margin of a game that keeps no scores where it is asked for."""
    from dataclasses import replace

    from mancala.games import game

    assert (game("sungka").main_measure, game("kalah").main_measure) == ("margin", "score")
    with pytest.raises(ValueError, match="no main measure 'seeds'"):
        replace(game("sungka"), main_measure="seeds")
    no_scores = Pairs(OPENINGS, [[1, 0]] * 8, [[None, None]] * 8)
    board = Scoreboard(no_scores, {"luck": (no_scores, no_scores)})
    with pytest.raises(ValueError, match="no margin against luck to decide on"):
        board.verdict(main="margin")
