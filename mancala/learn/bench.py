"""The learning loop's benchmarks: the teacher's speed and quality, the workers, the job.

`teacher_rates` (`mancala bench --teacher`) annotates the recorded games of
training/sample_kalah.jsonl twice with the exact teacher of the learning loop (the
solver's values within 20,000 nodes, minimax:10 elsewhere): valuing each position on its
own in game order, as the first version did, then chained from each game's end back to its
start (`mancala.learn.teacher.Teacher`).

`teachers_table` (`mancala bench teachers`): a teacher is DEPTH:NODES, the solver's exact
values where it proves them within NODES nodes, alpha-beta to DEPTH plies elsewhere (the
main job's default is 10:20000). Each teacher values every legal move of each position of
the whole-game set of Kalah(6,4) (mancala/data/, positions from every stage of real games,
solved exactly) on its own, and its best move is scored as `mancala measure perfect`
scores a player: the share that keeps the position's value and the seeds lost a move,
overall and in each third of the game (the set is in game order). A network taught by a
teacher learns its values, so the teacher's own figures are about as far as its students
can go. Beside them: the share of positions the solver valued exactly, and positions
valued a second of CPU time (one core). Zoo networks (their shipped Kalah weights, each
alone, without search) are scored the same way, to see in which third a student falls
short.

`workers_table` (`mancala bench workers`): games played 1 way and N ways
(mancala/arena/parallel.py). For each worker count, in one run: the seconds from asking
for the workers to their first game (Ray's start-up: the local Ray, the actors, their
imports), then, after an untimed round in which every worker meets every player and the
teacher, positions recorded and annotated a second (the learning loop's batch: the zoo's
nn1h128, greedy, minimax:2 and luck with 10% exploration, annotated by the teacher) and
tournament games a second (a round robin of the same players), each with the CPU time it
took (this process and the workers together). The load average is said beside the
figures: on a machine busy with other work the wall-clock ratio is not the speed-up an
idle machine gives (more processes also win a larger share of a shared CPU); the CPU time
a position is the steadier measure of what the workers cost.

`loop_table` (`mancala bench loop`): the main job's throughput. Runs `mancala train
--workers N` twice in turn, each for a number of batches in a run folder of its own that
is removed afterwards: first with `--wait-for-refits` (each batch handed out once the
refits and gates of the last are done: the workers wait meanwhile), then as the job runs
by default (the next batch played during them), both with the same further arguments. A
run's time is its wall-clock time from start to exit: reading the shipped labels, Ray's
start-up, every batch and its gate. Games and labelled positions are counted in the run's
games file; the workers' busy share is the one its last batch logged
(`mancala.learn.practice.Practice.busy_share`). "Per CPU-hour" divides by the machine's
CPUs, all of which the run had.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mancala.ai.network import NetworkPlayer
from mancala.ai.registry import make_player
from mancala.ai.solver import shared_solver
from mancala.arena.bench import say, timed, title
from mancala.arena.parallel import GameJob, Seat, Workers
from mancala.arena.records import GameLog
from mancala.arena.solved_set import load, move_losses, set_file
from mancala.arena.tournament import run_tournament
from mancala.core.paths import ROOT, TRAINING_DIR
from mancala.core.report import Table
from mancala.game_state import GameState
from mancala.learn.practice import Practice
from mancala.learn.teacher import Teacher
from mancala.nn_lib.zoo import network

THIRDS = ("opening", "middle", "end")  # the thirds of the whole-game set, in game order
PLAYERS = ["nn1h128", "greedy", "minimax:2", "luck"]  # of `workers_table`
LOOP_WAYS = {"wait for the refits": ["--wait-for-refits"], "play during them": []}
Say = Callable[..., None]  # print, or `say` (to stderr)


def teacher_rates(games: int, depth: int = 10, exact_nodes: int = 20_000) -> Table:
    """Positions annotated a second of CPU time by each way of the teacher."""
    records = list(itertools.islice(GameLog([TRAINING_DIR / "sample_kalah.jsonl"]), games))
    shared_solver(GameState.new())  # the endgame database: loaded (or built) before timing
    what = f"teacher minimax:{depth}+solver:n={exact_nodes}, {len(records)} games"
    table = Table([what, "positions/s", "exact", "x first version"], title=title("Kalah(6,4)"))
    first = None
    for label, chain in (("each position alone (first version)", False), ("chained", True)):
        teacher = Teacher(depth, exact_nodes, chain=chain)
        say(f"teacher: {label} ...")
        began = time.process_time()
        for record in records:
            teacher.annotate(dict(record))
        took = time.process_time() - began
        count = teacher.exact + teacher.searched
        rate = count / took
        first = first or rate
        table.add(
            label, f"{rate:,.0f}", f"{100 * teacher.exact / count:.0f}%", f"{rate / first:.2f}"
        )
    return table


def teachers_table(
    teachers: list[tuple[int, int]], positions: int | None, networks: list[str]
) -> Table:
    """A row for each teacher (DEPTH, NODES) and each zoo network of `networks` on about
    `positions` positions of the whole-game set (every k-th; all when None)."""
    nets = [network(name).load() for name in networks]  # a bad name stops it first
    solved = load(set_file(GameState.new()))[1]
    if positions:
        solved = solved[:: max(1, len(solved) // positions)]
    shared_solver(GameState.new())  # the endgame database: loaded (or built) before timing
    table = Table(
        ["teacher or network", "keeps value %", "seeds lost / move"]
        + [f"keeps value %, {stage}" for stage in THIRDS]
        + ["exact %", "positions / s"],
        title=f"Kalah(6,4): the teachers' best moves on {len(solved)} positions of the "
        "whole-game set",
    )
    for depth, nodes in teachers:
        name = f"minimax:{depth}" + (f"+solver:n={nodes}" if nodes else "")
        say(f"bench_teachers: {name} ...")
        table.add(*teacher_row(depth, nodes, solved))
    for net in nets:
        table.add(*network_row(net, solved))
    return table


def teacher_row(depth: int, nodes: int, positions: list) -> list:
    """The row of one teacher (see the module's doc)."""
    teacher = Teacher(depth, exact_nodes=nodes, chain=False)

    def best_moves(states: list) -> list[int]:
        return [
            max((v, m) for m, v in enumerate(teacher.move_values(state)) if v is not None)[1]
            for state in states
        ]

    losses, took = timed(move_losses, best_moves, positions)
    exact = round(100 * teacher.exact / len(positions))
    return quality_row(teacher.name, losses, exact, len(positions) / took)


def network_row(net: Any, positions: list) -> list:
    """The row of one zoo network playing alone (no exact values: "exact %" is empty)."""
    losses, took = timed(move_losses, NetworkPlayer(net=net).choose_moves, positions)
    return quality_row(net.name, losses, "", len(positions) / took)


def quality_row(name: str, losses: list[int], exact: int | str, rate: float) -> list:
    """A table row: the share of value kept, overall and by third, and the seeds lost.

    >>> quality_row("x", [0, 0, 3], 50, 10.0)
    ['x', 66.7, 1.0, 100.0, 100.0, 0.0, 50, 10.0]
    """
    losses = np.array(losses)
    thirds = np.array_split(losses, len(THIRDS))
    return [
        name,
        round(100 * float(np.mean(losses == 0)), 1),
        round(float(losses.mean()), 2),
        *(round(100 * float(np.mean(third == 0)), 1) for third in thirds),
        exact,
        round(rate, 1),
    ]


def load_average() -> str:
    """The machine's load average over 1, 5 and 15 minutes (as `uptime` shows it)."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def workers_table(
    workers: int, games: int, teacher: int, exact_nodes: int, tournament: int, say: Say = print
) -> Table:
    """1 worker against `workers` (see the module's doc); progress through `say`."""
    say(f"load average before: {load_average()}", flush=True)
    rows = [
        workers_row(count, games, teacher, exact_nodes, tournament, say) for count in (1, workers)
    ]
    say(f"load average after: {load_average()}\n")
    heading = (
        f"teacher minimax:{teacher}"
        + (f"+solver:n={exact_nodes}" if exact_nodes else "")
        + f", {games} games recorded, {tournament} tournament games a pair and seat, "
        f"{os.cpu_count()} CPUs"
    )
    table = Table(["workers", "start-up s", "positions recorded and annotated / s"], title=heading)
    table.headers += ["CPU ms a position", "tournament games / s", "CPU ms a game"]
    for row in rows:
        table.add(
            row["workers"],
            round(row["start"], 1),
            round(row["positions"]),
            round(row["position_cpu"], 2),
            round(row["games"]),
            round(row["game_cpu"], 2),
        )
    one, many = rows
    table.add(
        f"{many['workers']} : 1",
        "",
        f"{many['positions'] / one['positions']:.2f}x",
        f"{many['position_cpu'] / one['position_cpu']:.2f}x",
        f"{many['games'] / one['games']:.2f}x",
        f"{many['game_cpu'] / one['game_cpu']:.2f}x",
    )
    return table


def workers_row(
    count: int, games: int, teacher: int, exact_nodes: int, tournament: int, say: Say = print
) -> dict[str, float]:
    """Start-up seconds, positions annotated a second and tournament games a second."""
    began = time.perf_counter()
    with Workers(count) as workers:
        luck = [GameJob((0, 0), GameState.new(), (), seed) for seed in range(count)]
        list(workers.play([Seat("luck")], luck))
        start = time.perf_counter() - began
        seats = [Seat.of(make_player(spec, seed=0), explore=0.1) for spec in PLAYERS]
        rng = random.Random(0)
        with tempfile.TemporaryDirectory() as folder:
            practice = Practice(
                Path(folder) / "games.jsonl", teacher, exact_nodes=exact_nodes, workers=workers
            )
            practice.play([(a, b) for a in seats for b in seats if a is not b], 1)  # warm-up
            pairings = [tuple(rng.sample(seats, 2)) for _ in range(games)]
            timer, cpu = time.perf_counter(), workers.cpu_seconds()
            records = practice.play(pairings, 1)
            seconds = time.perf_counter() - timer
            cpu = workers.cpu_seconds() - cpu
        positions = sum(len(record["values"]) for record in records)
        run_tournament(PLAYERS, 4, GameState.new(), progress=False, workers=workers)  # warm-up
        timer, tournament_cpu = time.perf_counter(), workers.cpu_seconds()
        run_tournament(PLAYERS, tournament, GameState.new(), progress=False, workers=workers)
        tournament_seconds = time.perf_counter() - timer
        tournament_cpu = workers.cpu_seconds() - tournament_cpu
    played = len(PLAYERS) * (len(PLAYERS) - 1) * tournament
    row = {
        "workers": count,
        "start": start,
        "positions": positions / seconds,
        "position_cpu": 1000 * cpu / positions,
        "games": played / tournament_seconds,
        "game_cpu": 1000 * tournament_cpu / played,
    }
    say(
        f"{count} worker(s): start-up {start:.1f} s, {row['positions']:.0f} positions/s "
        f"({row['position_cpu']:.2f} CPU ms each), {row['games']:.0f} tournament games/s "
        f"({row['game_cpu']:.2f} CPU ms each); load average {load_average()}",
        flush=True,
    )
    return row


def loop_table(workers: int, batches: int, passed: list[str], say: Say = print) -> Table:
    """`mancala train` with the arguments `passed`, each way of `LOOP_WAYS` (see the module's
    doc); progress through `say`."""
    rows = {
        way: loop_run(workers, batches, passed + extra, say) for way, extra in LOOP_WAYS.items()
    }
    cpus = os.cpu_count() or 1
    heading = (
        f"mancala train {' '.join(passed) or '(the default job)'}: {batches} batches on "
        f"{workers} Ray workers, {cpus} CPUs"
    )
    table = Table(["schedule", "minutes", "games", "labelled positions"], title=heading)
    table.headers += ["games / CPU-hour", "positions / CPU-hour", "workers busy %"]
    for way, row in rows.items():
        hours = row["seconds"] / 3600 * cpus
        table.add(
            way,
            round(row["seconds"] / 60, 1),
            row["games"],
            row["positions"],
            round(row["games"] / hours),
            round(row["positions"] / hours),
            round(100 * row["busy"], 1),
        )
    before, after = rows.values()
    rate = (after["positions"] / after["seconds"]) / (before["positions"] / before["seconds"])
    table.add("after : before", "", "", "", "", f"{rate:.2f}x", "")
    return table


def loop_run(workers: int, batches: int, extra: list[str], say: Say = print) -> dict[str, float]:
    """Seconds, games, labelled positions and the workers' busy share of one run."""
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "run"
        command = [sys.executable, "-m", "mancala", "train", "--run", str(run)]
        command += ["--batches", str(batches), "--workers", str(workers), *extra]
        say(f"$ {' '.join(command[2:])}", flush=True)
        began = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        seconds = time.perf_counter() - began
        if done.returncode:
            raise RuntimeError(f"{' '.join(command[2:])} failed: {done.stderr[-2000:]}")
        records = list(GameLog([run / "games.jsonl"]))
        points = (
            json.loads((run / "curve.json").read_text()) if (run / "curve.json").is_file() else []
        )
    busy = points[-1]["busy"] if points else float("nan")
    positions = sum(len(record.get("values") or []) for record in records)
    say(f"  {seconds / 60:.1f} min, {len(records)} games, {positions} positions, busy {busy:.0%}")
    return {"seconds": seconds, "games": len(records), "positions": positions, "busy": busy}
