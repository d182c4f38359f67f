"""Games played N ways (mancala/arena/parallel.py): the same records with 1 and 2 workers,
a killed worker costs no game, SIGTERM keeps every finished game, a two-node cluster plays
a tournament through --address, and one worker never imports Ray."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from mancala.ai.network import NetworkPlayer
from mancala.ai.registry import make_player
from mancala.arena.parallel import GameJob, Seat, Workers
from mancala.arena.records import GameLog
from mancala.commands.tournament import main as tournament
from mancala.core.paths import ROOT
from mancala.core.stopping import Terminated, run_command
from mancala.game_state import GameState
from mancala.learn.teacher import Teaching
from mancala.nn_lib.zoo import network

ENV = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="2")
SAME = ("players", "moves", "scores", "winner", "seed", "opening")  # all but time and values


def seats_and_jobs(count: int) -> tuple[list[Seat], list[GameJob]]:
    """A network, an exploring greedy, minimax and luck, in `count` seeded games."""
    seats = [
        Seat.of(NetworkPlayer(net=network("nn1h128").fresh(0))),
        Seat.of(make_player("greedy"), explore=0.3),
        Seat("minimax:2"),
        Seat("luck"),
    ]
    openings = [(), (2,), (5, 0), (3,)]
    jobs = [
        GameJob((k % 4, (k + 1 + k // 4) % 4), GameState.new(), openings[k % 4], 1000 + k)
        for k in range(count)
    ]
    return seats, jobs


def same(record: dict) -> dict:
    return {key: record[key] for key in SAME}


def dies(actor) -> bool:
    """Whether `actor` stops answering within a minute: a kill goes through Ray's control
    service, so a call sent just after it may still be served."""
    import ray

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            ray.get(actor.cpu_seconds.remote(), timeout=60)
        except ray.exceptions.RayActorError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_sigterm_stops_the_workers_and_keeps_every_finished_game(tmp_path):
    out = tmp_path / "games.jsonl"
    command = [sys.executable, "mancala/random_train.py", "luck", "greedy", "--record-only"]
    command += ["--games", "8", "--per-pairing", "4", "--teacher", "3", "--exact-nodes", "0"]
    command += ["--out", str(out), "--run", str(tmp_path / "run"), "--workers", "2"]
    process = subprocess.Popen(
        command, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 90
    while not (out.exists() and out.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert "mancala train: terminated (SIGTERM) after" in err
    log = GameLog([out])
    games = list(log)
    assert games and log.skipped == 0
    assert len({game["seed"] for game in games}) == len(games)  # no game written twice
    assert all(len(game["values"]) == len(game["moves"]) for game in games)


@pytest.mark.ray
@pytest.mark.slow
def test_a_two_node_cluster_plays_a_tournament_through_address(tmp_path, capsys):
    from ray.cluster_utils import Cluster

    argv = ["3", "luck", "greedy", "--seed", "4", "--json"]
    assert tournament([*argv, "--record", str(tmp_path / "here.jsonl")]) == 0
    here = json.loads(capsys.readouterr().out)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        record = tmp_path / "cluster.jsonl"
        joined = ["--address", cluster.address, "--workers", "2", "--record", str(record)]
        assert tournament([*argv, *joined]) == 0
        there = json.loads(capsys.readouterr().out)
    finally:
        cluster.shutdown()
    assert there["results"] == here["results"]
    recorded = sorted(map(same, GameLog([record])), key=lambda r: r["seed"])
    assert recorded == sorted(
        map(same, GameLog([tmp_path / "here.jsonl"])), key=lambda r: r["seed"]
    )
    assert len(recorded) == 6  # 3 openings, 2 seats


def test_a_sigterm_that_a_library_turns_into_a_keyboard_interrupt_still_exits_143(capsys):
    def body() -> int:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
        except Terminated:
            raise KeyboardInterrupt from None  # what Ray's waits raise instead
        return 0

    assert run_command("demo", body, "nothing") == 143
    assert "demo: terminated (SIGTERM)" in capsys.readouterr().err


@pytest.mark.slow
def test_one_worker_plays_here_without_importing_ray(tmp_path):
    script = (
        "import sys\n"
        "from mancala.commands import train, tournament\n"
        "assert tournament.main(['1', 'luck', 'greedy', '--workers', '1']) == 0\n"
        "assert train.main(['luck', 'greedy', '--record-only', '--batches', '1',"
        " '--games', '2', '--per-pairing', '2', '--teacher', '2', '--exact-nodes', '0',"
        f" '--out', {str(tmp_path / 'g.jsonl')!r}, '--run', {str(tmp_path / 'run')!r}]) == 0\n"
        "print('ray' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=ENV, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("False")


def test_bad_worker_counts_and_addresses_are_refused(capsys):
    for bad in ("0", "two"):
        with pytest.raises(SystemExit) as stop:
            tournament(["1", "luck", "greedy", "--workers", bad])
        assert stop.value.code == 2
        assert f'--workers: must be a whole number >= 1 or "auto", not {bad!r}' in (
            capsys.readouterr().err
        )
    assert tournament(["1", "luck", "greedy", "--address", "127.0.0.1:1", "--workers", "2"]) == 2
    assert "tournament: nothing answers at 127.0.0.1:1" in capsys.readouterr().err


def test_a_network_seat_carries_the_weights_of_the_game_played(tmp_path):
    """A name with weights for several games sends the ones of the game being played."""
    from mancala.ai.network import NetworkPlayer
    from mancala.nn_lib.zoo import network

    kalah = network("nn1h128", tmp_path / "k.keras").fresh(seed=1)
    sungka = network("nn1h128", tmp_path / "s.keras", "sungka").fresh(seed=2)
    player = NetworkPlayer(net=kalah)
    player.nets["sungka"] = sungka
    assert Seat.of(player, start=GameState.new("sungka")).game == "sungka"
    assert Seat.of(player, start=GameState.new()).game == "kalah"
    assert Seat.of(player, start=GameState.new("sungka")).weights_id != Seat.of(player).weights_id


# ----- one pool of Ray workers for the last tests ------------------------------------------


@pytest.fixture(scope="module")
def pool():
    """Two Ray workers, started once for the two tests below (neither is about Ray's
    start-up); closing them stops the local Ray they started. Last in the file: they are
    closed when its tests end, and no other test may start Ray in this process before."""
    import ray

    with Workers(2) as workers:
        yield workers
    assert not ray.is_initialized()


@pytest.mark.ray
@pytest.mark.slow
def test_records_do_not_depend_on_the_workers_and_a_killed_worker_loses_no_game(pool):
    import ray

    seats, jobs = seats_and_jobs(24)
    assert seats[0].layers is not None and seats[2].layers is None
    here = {d.index: d for d in Workers(1).play(seats, jobs, Teaching(3, 0, "kalah"))}
    assert sorted(here) == list(range(24))
    assert all(len(d.record["values"]) == len(d.record["moves"]) for d in here.values())
    assert {tuple(here[k].record["players"]) for k in here} >= {("nn1h128", "greedy")}
    there = {d.index: d for d in pool.play(seats, jobs, Teaching(3, 0, "kalah"))}
    assert {k: same(d.record) for k, d in there.items()} == {
        k: same(d.record) for k, d in here.items()
    }
    assert all(d.record["teacher"] == "minimax:3" for d in there.values())
    first, replayed = pool.actors[0], pool.replayed
    seen: list[int] = []
    for done in pool.play(seats, jobs, Teaching(3, 0, "kalah")):
        if not seen:
            ray.kill(first)  # in the middle of its games
        seen.append(done.index)
        assert same(done.record) == same(here[done.index].record)
    assert sorted(seen) == list(range(24))  # each game once: none lost, none twice
    assert pool.actors[0] is not first  # the dead worker was replaced
    dead = pool.actors[1]
    ray.kill(dead)  # dead before its next games: they are replayed
    assert dies(dead), "the killed worker still answers after 60 s"
    again = {d.index: d.record for d in pool.play(seats, jobs[:8])}
    assert {k: same(r) for k, r in again.items()} == {k: same(here[k].record) for k in range(8)}
    assert pool.replayed > replayed


@pytest.mark.ray
@pytest.mark.slow
def test_games_handed_out_ahead_are_played_before_they_are_read(pool):
    """With `ahead` the workers play every game while nothing reads them (a call sent to
    a worker after its games finds them played), and each comes back once; a worker that
    dies with several chunks handed to it costs only their games, played again once on
    one new worker."""
    import ray

    def played() -> int:  # by the workers since they started
        return sum(ray.get([actor.played.remote() for actor in pool.actors]))

    seats, jobs = seats_and_jobs(24)
    here = {d.index: d.record for d in Workers(1).play(seats, jobs)}
    before, replayed = played(), pool.replayed
    playing = pool.play_batches(seats, jobs, ahead=True)
    assert played() == before + 24
    there = {d.index: d for batch in playing for d in batch}
    assert {k: same(d.record) for k, d in there.items()} == {k: same(r) for k, r in here.items()}
    assert all(d.busy > 0 for d in there.values()) and pool.replayed == replayed
    waiting = pool.play_batches(seats, jobs, ahead=False)
    assert played() == before + 24  # none yet
    assert sorted(d.index for batch in waiting for d in batch) == list(range(24))
    first = pool.actors[0]
    playing = pool.play_batches(seats, jobs, ahead=True)
    ray.kill(first)  # its chunks handed out, most not played
    seen = [d.index for batch in playing for d in batch]
    assert sorted(seen) == list(range(24))  # each game once: none lost, none twice
    assert pool.replayed > replayed and len(pool.actors) == 2 and first not in pool.actors


@pytest.mark.ray
@pytest.mark.slow
def test_self_play_games_are_the_same_records_wherever_they_are_played(pool, tmp_path):
    """A self-play round's games (a job's `playing`: az against itself, recorded with its
    visits) are the same on the pool as here, with either root."""
    from mancala.learn.az import SelfPlayGames
    from mancala.nn_lib.policy_value import PolicyValue

    path = tmp_path / "az-net.keras"
    PolicyValue("kalah", path).fresh(0).save()
    stamp = path.stat().st_mtime_ns
    for root in ("gumbel", "dirichlet"):
        how = SelfPlayGames(str(path), stamp, "kalah", (), 8, root, explore_plies=4)
        jobs = [GameJob((0, 0), GameState.new(), seed=50 + k, playing=how) for k in range(4)]
        here = {d.index: d.record for d in Workers(1).play([], jobs)}
        there = {d.index: d.record for d in pool.play([], jobs)}
        assert sorted(there) == list(range(4))
        played = {k: (r["players"], r["moves"], r["visits"]) for k, r in here.items()}
        assert {k: (r["players"], r["moves"], r["visits"]) for k, r in there.items()} == played
        assert len({tuple(moves) for _, moves, _ in played.values()}) > 1  # games differ
