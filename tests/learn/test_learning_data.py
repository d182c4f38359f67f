"""The learning loop's data: the chained teacher, the bounded store of examples, and the
sets of solved positions that measure players against perfect play."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from mancala.ai import solver as solver_player
from mancala.ai.registry import make_player
from mancala.arena import solved_set
from mancala.arena.match import play_games
from mancala.arena.openings import random_opening
from mancala.arena.records import replay
from mancala.game_state import GameState
from mancala.games.examples import Examples
from mancala.games.replay import replayed
from mancala.games.sowing.solver import Solver, default_max_seeds
from mancala.learn.data import PositionStore
from mancala.learn.teacher import Teacher


@pytest.fixture
def small_solver(monkeypatch):
    """The process's shared solver of Kalah(4,3), with a small endgame database (4 seeds)
    so that most positions need a search."""
    small = Solver(houses=4, max_seeds=4, cache_dir=None, progress=False)
    monkeypatch.setitem(solver_player._SOLVERS, (4, False, default_max_seeds(4, 24)), small)
    return small


@pytest.fixture(scope="module")
def full_solver():
    """A solver of Kalah(4,3) whose endgame database holds the whole game (24 seeds): its
    values are read, not searched. Built once (seconds) for the tests that check against
    it."""
    return Solver(houses=4, max_seeds=24, cache_dir=None, progress=False)


def _games(count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    players = [make_player("luck", 1), make_player("greedy", 2)]
    records = []
    for _ in range(count):
        start, opening = random_opening(GameState.new(houses=4, seeds=3), 2, rng)
        records += play_games(players, [start], openings=[opening])
    return records


@pytest.mark.slow
def test_chained_teacher_gives_the_solvers_values_where_it_proves_them(small_solver, full_solver):
    """Valued from the end back, the teacher's exact values are the solver's; where its
    budget runs out it gives alpha-beta's values, as valuing each position alone does."""
    full = full_solver
    for record in _games(6, seed=7):
        states = replay(record)[:-1]
        chained = Teacher(depth=3, exact_nodes=10**7).annotate(dict(record))["values"]
        for state, values in zip(states, chained):
            moves = full.solve(state)["moves"]
            assert values == [moves.get(m) for m in range(4)]
        cheap = Teacher(depth=3, exact_nodes=200)
        values = cheap.annotate(dict(record))["values"]
        assert cheap.exact + cheap.searched == len(states)
        # the end of the game is proved; once a proof fails, every earlier position is searched
        assert cheap.exact >= 1
        proved = [full.solve(state)["moves"] for state in states]
        same = [v == [moves.get(m) for m in range(4)] for moves, v in zip(proved, values)]
        assert all(same[len(states) - cheap.exact :])


def test_teacher_recalls_positions_it_has_valued():
    teacher = Teacher(depth=2)
    record = _games(1, seed=3)[0]
    first = teacher.annotate(dict(record))["values"]
    searched = teacher.searched
    again = teacher.annotate(dict(record))["values"]
    assert again == first
    assert teacher.searched == 2 * searched  # counted, though recalled, not searched again
    assert len(teacher.known) == len(set(replay(record)[:-1]))


def _chunk(first: int, count: int):
    ids = np.arange(first, first + count)
    boards = np.tile(ids[:, None], (1, 14)).astype(np.int16)
    return Examples(boards, np.zeros((count, 6), np.float32), np.ones((count, 6), bool))


def test_store_keeps_a_bounded_uniform_sample_of_everything_seen():
    store = PositionStore(capacity=1000, seed=1)
    for first in range(0, 30_000, 500):
        store.add_chunks([_chunk(first, 500)], games=10)
    assert len(store) == 1000 and store.seen == 30_000 and store.games == 600
    kept = store.arrays()[0][:, 0].astype(np.int64)
    assert len(set(kept.tolist())) > 900  # mostly distinct examples
    # uniform over all seen: as many from the first half of the stream as from the second
    assert 400 < int((kept < 15_000).sum()) < 600
    store.arrays()[1][:, 0] = kept  # each example's gain names it: the columns stay aligned
    order = kept.tolist()
    rel, gains, mask = store.sample(1000, np.random.default_rng(0))  # all: shuffled in place
    assert rel is store.arrays()[0] and rel[:, 0].tolist() != order
    assert sorted(rel[:, 0].tolist()) == sorted(order) and (gains[:, 0] == rel[:, 0]).all()
    assert len(store.sample(10, np.random.default_rng(0))[0]) == 10
    assert len(store.sample(3000, np.random.default_rng(0))[0]) == 3000
    with pytest.raises(ValueError, match="capacity"):
        PositionStore(capacity=0)


@pytest.mark.slow
def test_solved_set_is_built_resumed_and_loaded(tmp_path, small_solver, full_solver):
    start = GameState.new(houses=4, seeds=3)
    path = tmp_path / "set.jsonl"
    full = full_solver
    assert solved_set.build(path, start, 12, seed=2, command="cmd", solve=full.solve) == 12
    head, positions = solved_set.load(path)
    assert head["command"] == "cmd" and len(positions) == 12
    plies = [len(p.moves) for p in positions]
    assert min(plies) <= 3 and max(plies) >= 10  # every stage of the games
    for p in positions:
        assert p.values == full.solve(p.state)["moves"]
        assert p.state == replayed(start, list(p.moves))
    # cut the file after 5 positions and a half line: building again solves the rest
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:6]) + "\n" + lines[6][:20])
    assert solved_set.build(path, start, 12, seed=2, command="cmd", solve=full.solve) == 7
    assert [p.values for p in solved_set.load(path)[1]] == [p.values for p in positions]
    with pytest.raises(ValueError, match="another set"):
        solved_set.build(path, start, 13, seed=2, command="cmd", solve=full.solve)
    # a damaged line is left out, never trusted
    damaged = list(solved_set.read_lines(path))  # the half line left out
    damaged[1]["values"] = {"9": 1}  # a move the position does not have
    path.write_text("\n".join(json.dumps(d) for d in damaged) + "\n")
    assert len(solved_set.load(path)[1]) == 11
    with pytest.raises(ValueError, match="mancala solve set"):
        solved_set.load(tmp_path / "missing.jsonl")


@pytest.mark.slow
def test_workers_prove_the_same_set_and_resume_it(tmp_path, lab_main, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path / "cache"))  # Ray's workers too
    args = ["--positions", "16", "--houses", "4", "--seeds", "3", "--max-seeds", "4"]
    alone, together = tmp_path / "alone.jsonl", tmp_path / "together.jsonl"
    assert lab_main("solve", "set", *args, "--out", str(alone)).returncode == 0
    run = lab_main("solve", "set", *args, "--out", str(together), "--workers", "2")
    assert run.returncode == 0 and "16 position(s) solved now" in run.stdout, run.stderr
    values = lambda path: {p.moves: p.values for p in solved_set.load(path)[1]}  # noqa: E731
    assert len(values(together)) == 16 and values(together) == values(alone)
    again = lab_main("solve", "set", *args, "--out", str(together), "--workers", "2")
    assert "0 position(s) solved now" in again.stdout


@pytest.mark.slow
def test_a_position_a_record_proves_is_taken_from_it(tmp_path, capsys):
    """`solve set --records`: the opening, whose every move a record of `mancala solve
    --save` proves, is not solved again; its values are the record's, which are right."""
    from mancala.commands import solve_set
    from mancala.games.sowing.solver.campaign import solve_every_move

    start = GameState.new(houses=3, seeds=2)
    full = Solver(houses=3, max_seeds=12, cache_dir=None, progress=False)
    records = tmp_path / "records"
    records.mkdir()
    (records / "broken.json").write_text("{")  # proves nothing: skipped
    record = solve_every_move(full, start, records / "opening.json", out=None)
    entries = json.loads((records / "opening.json").read_text())["moves"]
    entries["0"]["value"] += 1  # a value only the record gives: seen in the set if taken
    (records / "opening.json").write_text(json.dumps({**record, "moves": entries}))
    out = tmp_path / "set.jsonl"
    argv = ["--houses", "3", "--seeds", "2", "--positions", "12", "--max-seeds", "4"]
    assert solve_set.main([*argv, "--out", str(out), "--records", str(records)]) == 0
    lines = [line for line in list(solved_set.read_lines(out))[1:] if not line["moves"]]
    assert lines and lines[0]["record"] == "opening.json"
    assert all(line["values"]["0"] == full.solve(start)["moves"][0] + 1 for line in lines)
    others = [p for p in solved_set.load(out)[1] if p.moves]
    assert others and all(p.values == full.solve(p.state)["moves"] for p in others)
    capsys.readouterr()


def test_a_position_met_again_is_solved_once(tmp_path):
    start = GameState.new(houses=3, seeds=2)
    path = tmp_path / "set.jsonl"
    full = Solver(houses=3, max_seeds=12, cache_dir=None, progress=False)
    solved: list[GameState] = []

    def solve(state: GameState) -> dict:
        solved.append(state)
        return full.solve(state)

    assert solved_set.build(path, start, 40, seed=1, command="cmd", solve=solve) == 40
    assert len(solved) == len(set(solved)) < 40  # short games: the opening, and more, again
    lines = {line["index"]: line for line in list(solved_set.read_lines(path))[1:]}
    twins = [line for line in lines.values() if "same_as" in line]
    assert len(twins) == 40 - len(solved)
    for line in twins:
        first = lines[line["same_as"]]
        assert "same_as" not in first and line["values"] == first["values"]
        assert replayed(start, line["moves"]) == replayed(start, first["moves"])
    positions = solved_set.load(path)[1]
    assert len(positions) == 40
    assert all(p.values == full.solve(p.state)["moves"] for p in positions)
    # resumed after a cut: a position solved before is not solved again
    kept = path.read_text().splitlines()[:-3]
    path.write_text("\n".join(kept) + "\n")
    before = {replayed(start, json.loads(line)["moves"]) for line in kept[1:]}
    solved.clear()
    assert solved_set.build(path, start, 40, seed=1, command="cmd", solve=solve) == 3
    assert len(solved_set.load(path)[1]) == 40
    assert not before & set(solved)


def test_move_quality_counts_value_keeping_moves(tmp_path):
    start = GameState.new(houses=3, seeds=2)
    full = Solver(houses=3, max_seeds=12, cache_dir=None, progress=False)
    values = full.solve(start)["moves"]
    position = solved_set.SolvedPosition((), start, values)
    best, worst = max(values, key=values.get), min(values, key=values.get)
    kept = solved_set.move_quality(lambda states: [best], [position])
    assert (kept["kept"], kept["seeds_lost"], kept["losses"]) == (1.0, 0.0, [0])
    lost = solved_set.move_quality(lambda states: [worst], [position])
    assert lost["kept"] == 0.0 and lost["seeds_lost"] == values[best] - values[worst]
    assert lost["by_stage"] == {"0-24": {"positions": 1, **solved_set.quality_of(lost["losses"])}}


def test_a_paired_comparison_sees_what_two_separate_figures_cannot():
    """Two choosers that differ on 3 positions of 400: each share's own standard error is
    about 2 points, the paired difference's under 1."""
    first = [0] * 200 + [1] * 200
    second = [0] * 197 + [2] * 3 + [1] * 200
    alone = solved_set.quality_of(first)
    diff = solved_set.paired(first, second)
    assert diff["kept"] == 3 / 400 and alone["kept_se"] > 0.02
    assert 0 < diff["kept_se"] < 0.005 and diff["seeds_lost"] == -6 / 400
    with pytest.raises(ValueError, match="same positions"):
        solved_set.paired(first, second[:-1])


@pytest.mark.slow
def test_a_full_disk_stops_recording_with_a_message_and_whole_lines(tmp_path):
    """A file-size limit (the kernel refuses writes past it, as a full disk does) stops
    random_train with a line saying what was kept; every line of the games file is whole."""
    import subprocess
    import sys
    import textwrap

    run = tmp_path / "run"
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))
        from mancala.commands import train
        sys.exit(train.main(["greedy", "luck", "--record-only", "--teacher", "2",
            "--exact-nodes", "0", "--games", "40", "--run", "{run}"]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1, done.stderr
    assert "cannot write" in done.stderr and "every finished game is in" in done.stderr
    lines = (run / "games.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) > 5  # ends with a whole line
    for line in lines[:-1]:
        assert json.loads(line)["moves"]


def test_the_shipped_set_is_found_by_its_game_and_rules():
    from mancala.games import new_game

    four, five = (solved_set.shipped_set(new_game("kalah", seeds=s)) for s in (4, 5))
    assert len(four) == len(five) == 500
    assert four[0].state.seeds == 4 and five[0].state.seeds == 5  # each board its own set
    for other in (new_game("kalah", seeds=6), new_game("sungka"), new_game("tak")):
        assert solved_set.shipped_set(other) == []


def test_the_gate_meets_candidates_on_its_own_set_never_the_held_out_one():
    from mancala.learn.promotion import gate_positions

    gate = gate_positions("kalah")
    head, held = solved_set.load(solved_set.set_file(GameState.new(), solved_set.HELD_OUT))
    assert len(gate) == 2000 == head["positions"] == len(held)
    assert solved_set.load(solved_set.set_file(GameState.new(), solved_set.GATE_SET))[0][
        "seed"
    ] not in (0, head["seed"])
    assert [p.moves for p in gate] != [p.moves for p in held]
    assert len(gate_positions("kalah", {"seeds": 5})) == 500  # no gate set: the whole-game set
    assert gate_positions("sungka") == []


def test_no_fit_reads_a_position_of_the_held_out_set():
    from mancala.learn.data import record_positions, visit_targets

    _, held = solved_set.load(solved_set.set_file(GameState.new(), solved_set.HELD_OUT))
    held_states = {p.state for p in held}
    record = play_games([make_player("greedy", 1), make_player("luck", 2)], [GameState.new()])[0]
    states = replay(record)[:-1]
    inside = sum(state in held_states for state in states)
    assert inside >= 1  # the opening position is in the set
    Teacher(2).annotate(record)
    boards = record_positions(record)[0]
    assert len(boards) == len(states) - inside
    record["visits"] = [[1 if m in s.legal_moves() else 0 for m in range(6)] for s in states]
    assert len(visit_targets(record, 2.0)[0]) == len(states) - inside
    other = play_games([make_player("greedy", 1)] * 2, [GameState.new(houses=4, seeds=3)])[0]
    Teacher(2).annotate(other)  # other rules: the set does not apply
    assert len(record_positions(other)[0]) == len(replay(other)) - 1


def test_exact_only_learns_the_positions_a_record_says_are_exact(tmp_path):
    from mancala.learn.data import PositionReader, record_positions

    start = GameState.new(houses=4, seeds=3)
    record = play_games([make_player("greedy", 1), make_player("luck", 2)], [start])[0]
    Teacher(2).annotate(record)
    n = len(record["values"])
    assert record["exact"] == [False] * n  # alpha-beta alone proves nothing here
    assert record_positions(record, exact_only=True) is None
    record["exact"] = [k % 2 == 0 for k in range(n)]
    boards = record_positions(record, exact_only=True)[0]
    assert len(boards) == (n + 1) // 2
    assert (boards == record_positions(record)[0][::2]).all()
    del record["exact"]  # a record that does not say: none is exact
    assert record_positions(record, exact_only=True) is None
    record["exact"] = [True] * n
    from mancala.arena.records import append_games

    append_games(tmp_path / "g.jsonl", [record])
    [chunk] = list(PositionReader([tmp_path / "g.jsonl"], exact_only=True))
    assert len(chunk[0]) == n


def test_a_compressed_record_files_examples_are_built_once_and_kept(tmp_path, monkeypatch):
    """A `.jsonl.xz` file's examples are kept in the cache: read again they are the same
    chunks and counts, and no record is replayed; a damaged cache file is built again, and
    a file that changed gets its own (the old one goes)."""
    import lzma

    from mancala.learn import data

    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path / "cache"))
    shipped = data.DATA_DIR / "kalah" / "kalah-h6-s4-labels-seed0.jsonl.xz"
    lines = lzma.open(shipped, "rt").read().splitlines(keepends=True)[:40]
    path = tmp_path / "labels.jsonl.xz"
    path.write_bytes(lzma.compress("".join(lines + ["not json\n"]).encode()))

    def read(exact_only=False):
        reader = data.PositionReader([path], chunk=300, exact_only=exact_only)
        chunks = list(reader)
        return chunks, (reader.games, reader.unannotated, reader.skipped, reader.teachers)

    built, counts = read()
    assert len(built) > 1 and counts[0] > 30 and counts[2] == 1  # the line not JSON
    [kept] = (tmp_path / "cache" / "examples").glob("labels.jsonl.xz-all-*.npz")
    real = data.record_positions
    monkeypatch.setattr(data, "record_positions", lambda *_: pytest.fail("replayed"))
    again, counts_again = read()
    assert counts_again == counts and len(again) == len(built)
    for one, other in zip(built, again):
        assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(one, other))
    monkeypatch.setattr(data, "record_positions", real)
    kept.write_bytes(b"damaged")
    assert read()[1] == counts and kept.stat().st_size > len(b"damaged")  # built again
    exact, _ = read(exact_only=True)
    assert sum(len(c[0]) for c in exact) < sum(len(c[0]) for c in built)
    path.write_bytes(lzma.compress("".join(lines[:10]).encode()))
    assert 0 < read()[1][0] < counts[0]  # the file as it is now
    assert not kept.exists() and len(list(kept.parent.glob("labels.jsonl.xz-all-*"))) == 1
