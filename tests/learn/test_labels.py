"""Exact labels at scale: `mancala solve labels` and mancala/learn/labels.py."""

from __future__ import annotations

import json

import pytest

from mancala.arena.records import replay
from mancala.games.sowing.solver import Solver
from mancala.learn.labels import Labelling, labelled, stage_report

SMALL = ("--houses", "3", "--seeds", "3")


def records_of(path):
    return sorted(labelled([path]), key=lambda r: r["label"])


def test_every_legal_move_is_valued_exactly(lab_main, tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "labels.jsonl"
    done = lab_main(
        "solve", "labels", *SMALL, "--games", "6", "--max-seeds", "6", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "| all | " in done.stdout  # the stage table
    head = json.loads(out.read_text().splitlines()[0])
    assert head["kind"] == "header" and head["command"].startswith("mancala solve labels")
    full = Solver(3, max_seeds=18, cache_dir=None, progress=False)  # the whole game
    records = records_of(out)
    assert [r["label"] for r in records] == list(range(6))
    checked = 0
    for record in records:
        assert all(record["exact"]) and len(record["label_ms"]) == len(record["values"])
        for state, values in zip(replay(record), record["values"]):
            truth = full.solve(state)["moves"]
            assert {m: v for m, v in enumerate(values) if v is not None} == truth
            checked += 1
    assert checked > 30


def test_a_proof_out_of_budget_is_labelled_by_search_and_says_so(lab_main, tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "labels.jsonl"
    args = ("--games", "4", "--max-seeds", "4", "--nodes", "20", "--depth", "2", "--out", str(out))
    assert lab_main("solve", "labels", *SMALL, *args).returncode == 0
    records = records_of(out)
    flags = [flag for r in records for flag in r["exact"]]
    assert not all(flags) and any(flags)  # the endgame proved, the rest searched
    for record in records:
        exact = record["exact"]
        if not all(exact):  # from the last position a proof ran out of its budget, back
            last = max(i for i, flag in enumerate(exact) if not flag)
            assert not any(exact[: last + 1])
        for state, values in zip(replay(record), record["values"]):
            assert [m for m, v in enumerate(values) if v is not None] == state.legal_moves()
    report = stage_report(records)
    assert report[-1]["positions"] == len(flags) and report[-1]["exact"] == sum(flags)


def test_up_to_labels_the_emptier_positions_only_and_the_fits_skip_the_rest(
    lab_main, tmp_path, monkeypatch
):
    from mancala.arena.solved_set import seeds_in_houses
    from mancala.learn.data import record_positions

    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "labels.jsonl"
    args = ("--games", "6", "--max-seeds", "6", "--up-to", "10", "--out", str(out))
    assert lab_main("solve", "labels", *SMALL, *args).returncode == 0
    full = Solver(3, max_seeds=18, cache_dir=None, progress=False)
    skipped = labelled_rows = 0
    for record in records_of(out):
        states = replay(record)[:-1]
        for state, values, exact in zip(states, record["values"], record["exact"]):
            if seeds_in_houses(state) > 10:
                assert values is None and not exact
                skipped += 1
            else:
                assert (
                    exact
                    and {m: v for m, v in enumerate(values) if v is not None}
                    == (full.solve(state)["moves"])
                )
                labelled_rows += 1
        rows = record_positions(record)
        assert (rows[0].shape[0] if rows else 0) == sum(v is not None for v in record["values"])
    assert skipped and labelled_rows  # both kinds were met
    report = stage_report(records_of(out))
    assert report[-1]["positions"] == labelled_rows


def test_a_labelling_continues_where_it_stopped(lab_main, tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path / "cache"))
    whole, parts = tmp_path / "whole.jsonl", tmp_path / "parts.jsonl"
    common = (*SMALL, "--max-seeds", "6", "--seed", "3")
    assert lab_main("solve", "labels", *common, "--games", "5", "--out", str(whole)).returncode == 0
    assert lab_main("solve", "labels", *common, "--games", "2", "--out", str(parts)).returncode == 0
    with open(parts, "a") as handle:
        handle.write('{"format": 1, "variant": "kal\n')  # a line cut short by a crash
    done = lab_main("solve", "labels", *common, "--games", "5", "--out", str(parts))
    assert done.returncode == 0 and "3 game(s) labelled now" in done.stdout

    def games(path):
        return [(r["label"], r["moves"], r["values"]) for r in records_of(path)]

    assert games(parts) == games(whole)  # the same games, whether stopped or not
    again = lab_main("solve", "labels", *common, "--games", "5", "--out", str(parts))
    assert "all 5 games are labelled" in again.stdout
    other = lab_main("solve", "labels", *SMALL, "--seed", "4", "--out", str(parts))
    assert other.returncode == 2 and "holds other labels" in other.stderr


def test_a_games_players_and_opening_depend_on_its_seed_and_index_alone():
    from mancala.games import new_game

    start = new_game("kalah")
    one, two = Labelling(7, start), Labelling(7, start)
    assert [one.job(i) for i in (5, 3)] == [two.job(i) for i in (5, 3)]
    assert one.job(5) != Labelling(8, start).job(5)
    assert {"nnxat2h512", "minimax:12"} <= set(one.strong())
    assert Labelling(7, new_game("kalah", houses=3, seeds=3)).strong() == [
        "minimax:8",
        "minimax:12",
    ]


def test_a_fit_from_the_shipped_weights_leaves_them_as_they_were(lab_main, tmp_path):
    from mancala.ai.registry import make_player
    from mancala.arena.match import play_games
    from mancala.arena.records import append_games
    from mancala.core.paths import MODELS_DIR
    from mancala.game_state import GameState
    from mancala.learn.teacher import Teacher

    records = play_games([make_player("greedy", 1), make_player("luck", 2)], [GameState.new()] * 3)
    append_games(tmp_path / "games.jsonl", [Teacher(2).annotate(r) for r in records])
    shipped = MODELS_DIR / "kalah" / "nn1h128.keras"
    before = shipped.read_bytes()
    args = ("--init", str(shipped), "--models", str(tmp_path / "m"), str(tmp_path / "games.jsonl"))
    done = lab_main("fit", "nn1h128", *args, "--epochs", "1")
    assert done.returncode == 0, done.stderr
    assert f"weights from {shipped}" in done.stdout
    assert (tmp_path / "m" / "kalah" / "nn1h128.keras").is_file()
    assert shipped.read_bytes() == before
    both = lab_main("fit", "nn1h128", *args, "--fresh")
    assert both.returncode == 2 and "give one" in both.stderr
    unsettled = lab_main("fit", "nn1h128", *args, "--average")
    assert unsettled.returncode == 2 and "add --settle" in unsettled.stderr
    missing = lab_main("fit", "nn1h128", "--init", str(tmp_path / "no.keras"))
    assert missing.returncode == 2 and "no weights file" in missing.stderr


def test_a_fit_starts_from_the_shipped_weights_and_saves_beside_them(tmp_path, monkeypatch, capsys):
    """Without --models a fit saves to runs/fit/, never over the shipped file, starting
    from the shipped weights, and says how to gate it."""
    from mancala.ai.registry import make_player
    from mancala.arena.match import play_games
    from mancala.arena.records import append_games
    from mancala.commands import fit
    from mancala.core.paths import MODELS_DIR
    from mancala.game_state import GameState
    from mancala.learn.teacher import Teacher

    monkeypatch.setattr(fit, "FIT_DIR", tmp_path / "fit")
    records = play_games([make_player("greedy", 1), make_player("luck", 2)], [GameState.new()] * 2)
    append_games(tmp_path / "games.jsonl", [Teacher(2).annotate(r) for r in records])
    shipped = MODELS_DIR / "kalah" / "nn1h128.keras"
    before = shipped.read_bytes()
    assert fit.main(["nn1h128", str(tmp_path / "games.jsonl"), "--epochs", "1"]) == 0
    out = capsys.readouterr().out
    assert f"weights from {shipped}" in out and shipped.read_bytes() == before
    assert (tmp_path / "fit" / "kalah" / "nn1h128.keras").is_file()
    promote = f"`mancala promote {tmp_path / 'fit'} nn1h128 --variant kalah` puts it through"
    assert promote in out


@pytest.mark.slow
def test_az_net_is_fitted_on_the_same_records_at_its_value_scale(lab_main, tmp_path):
    from mancala.ai.registry import make_player
    from mancala.arena.match import play_games
    from mancala.arena.records import append_games
    from mancala.game_state import GameState
    from mancala.learn.teacher import Teacher
    from mancala.nn_lib.policy_value import PolicyValue, weights_file

    records = play_games([make_player("greedy", 1), make_player("luck", 2)], [GameState.new()] * 2)
    append_games(tmp_path / "games.jsonl", [Teacher(2).annotate(r) for r in records])
    models = tmp_path / "m"
    args = ("--models", str(models), "--fresh", "--epochs", "2", str(tmp_path / "games.jsonl"))
    done = lab_main(
        "fit", "az-net", "--value-scale", "24", "--score-weight", "0.25", "--settle", *args
    )
    assert done.returncode == 0, done.stderr
    assert "epoch 2/2" in done.stdout and "rate 0.0001" in done.stdout  # settled to a tenth
    assert "score weight 0.25" in done.stdout
    net = PolicyValue("kalah", weights_file("kalah", models)).load()
    assert (net.value_scale, net.score_weight) == (24.0, 0.25)
    zoo = lab_main("fit", "nn1h128", "--value-scale", "24", *args)
    assert zoo.returncode == 2 and "--value-scale and --score-weight are az-net's" in zoo.stderr


def test_the_first_plies_are_each_labelled_once_exactly_and_a_stop_continues(
    lab_main, tmp_path, monkeypatch
):
    from mancala.games import new_game
    from mancala.learn.data import record_positions
    from mancala.learn.labels import FirstPlies

    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "plies.jsonl"
    common = (*SMALL, "--max-seeds", "6", "--plies", "3", "--out", str(out))
    lines = FirstPlies(3, new_game("kalah", houses=3, seeds=3)).lines
    with open(out, "w") as handle:  # a stop after the header and a damaged line
        handle.write('{"kind": "header", "format": "mancala-labels", "variant": "kal\n')
    refused = lab_main("solve", "labels", *common)
    assert refused.returncode == 2 and "holds other labels" in refused.stderr
    out.unlink()
    assert lab_main("solve", "labels", *common).returncode == 0
    records = records_of(out)
    kept = out.read_text().splitlines()
    out.write_text("\n".join(kept[: len(kept) // 2]) + "\n")  # stopped half way
    done = lab_main("solve", "labels", *common)
    assert done.returncode == 0 and f"{len(lines) - len(kept) // 2 + 1} position(s)" in done.stdout
    assert [(r["label"], r["moves"], r["values"]) for r in records_of(out)] == [
        (r["label"], r["moves"], r["values"]) for r in records
    ]
    full = Solver(3, max_seeds=18, cache_dir=None, progress=False)
    states = []
    for record, line in zip(records, lines, strict=True):
        assert record["moves"][:-1] == list(line) and record.get("opening", 0) == len(line)
        *before, state = replay(record)[:-1]
        assert record["values"][:-1] == [None] * len(before) and record["exact"][-1]
        truth = full.solve(state)["moves"]
        assert {m: v for m, v in enumerate(record["values"][-1]) if v is not None} == truth
        assert record["moves"][-1] in full.solve(state)["best"]
        states.append(state)
        assert len(record_positions(record, True)[0]) == 1  # one example: the position
    assert len(set(states)) == len(states) > 20  # each position once
    deeper = FirstPlies(4, new_game("kalah", houses=3, seeds=3)).lines
    more = lab_main("solve", "labels", *common[:-4], "--plies", "4", "--out", str(out))
    assert f"{len(deeper) - len(lines)} position(s)" in more.stdout  # the file grows
    assert [r["moves"][:-1] for r in records_of(out)] == [list(line) for line in deeper]


def test_keep_above_rehearses_the_fuller_positions_at_the_starting_weights_values(
    lab_main, tmp_path
):
    import numpy as np

    from mancala.ai.registry import make_player
    from mancala.arena.match import play_games
    from mancala.arena.records import append_games
    from mancala.core.paths import MODELS_DIR
    from mancala.game_state import GameState
    from mancala.games.sowing.view import houses_of
    from mancala.learn.data import record_positions
    from mancala.learn.record_fit import RecordFit, rehearsal
    from mancala.learn.teacher import Teacher
    from mancala.nn_lib.zoo import network

    records = play_games([make_player("greedy", 1), make_player("luck", 2)], [GameState.new()] * 3)
    path = tmp_path / "games.jsonl"
    append_games(path, [Teacher(2).annotate(r) for r in records])
    every = [record_positions(r) for r in records]
    fuller = sum(int((houses_of(p.inputs).sum(axis=1) > 40).sum()) for p in every)
    fit = RecordFit("nn1h128", "kalah", tmp_path / "m", (path,), keep_above=40)
    net = network("nn1h128", MODELS_DIR / "kalah" / "nn1h128.keras").load()
    kept = rehearsal(net, fit)
    assert 0 < len(kept.inputs) == fuller < sum(len(p.inputs) for p in every)
    assert (houses_of(kept.inputs).sum(axis=1) > 40).all()
    values = net.board_values(kept.inputs, kept.mask)
    assert np.allclose(kept.moves[kept.mask], values[kept.mask])
    args = ("--models", str(tmp_path / "m"), "--epochs", "1", str(path))
    done = lab_main("fit", "nn1h128", "--keep-above", "40", *args)
    assert done.returncode == 0, done.stderr
    assert f"rehearses {fuller:,} positions of more than 40 seeds" in done.stdout
    refused = lab_main("fit", "az-net", "--keep-above", "40", *args)
    assert refused.returncode == 2 and "--keep-above" in refused.stderr
