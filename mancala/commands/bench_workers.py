"""Games played 1 way and N ways (mancala/arena/parallel.py): the speed-up and Ray's start-up.

    mancala bench workers                      # 1 worker against 2
    mancala bench workers --workers 4 --games 64 --teacher 8

For each worker count, in one run: the seconds from asking for the workers to their first
game (Ray's start-up: the local Ray, the actors, their imports), then, after an untimed
round in which every worker meets every player and the teacher, positions recorded and
annotated a second (the learning loop's batch: the zoo's nn1h128, greedy, minimax:2 and
luck with 10% exploration, annotated by the teacher) and tournament games a second (a
round robin of the same players), each with the CPU time it took (this process and the
workers together). The load average is printed beside the figures: on a machine busy
with other work the wall-clock ratio is not the speed-up an idle machine gives (more
processes also win a larger share of a shared CPU); the CPU time a position is the
steadier measure of what the workers cost.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from mancala.core.cli import command_parser, int_in
from mancala.core.report import Table, show
from mancala.core.stopping import run_command

PLAYERS = ["nn1h128", "greedy", "minimax:2", "luck"]


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala bench workers", __doc__)
    parser.add_argument("--workers", type=int_in(2), default=2, help="N, against 1 (2)")
    parser.add_argument("--games", type=int_in(1), default=96, help="games recorded (96)")
    parser.add_argument("--teacher", type=int_in(1, 20), default=8, help="teacher depth (8)")
    parser.add_argument(
        "--exact-nodes", type=int_in(0), default=0, help="teacher's solver nodes (0: none)"
    )
    parser.add_argument(
        "--tournament", type=int_in(1), default=200, help="tournament games a pair and seat (200)"
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    return run_command("mancala bench workers", lambda: _bench(args), "nothing was kept")


def _bench(args: argparse.Namespace) -> int:
    say = print if not args.json else lambda line, **_: print(line, file=sys.stderr)
    say(f"load average before: {load()}", flush=True)
    rows = [measure(count, args, say) for count in (1, args.workers)]
    say(f"load average after: {load()}\n")
    title = (
        f"teacher minimax:{args.teacher}"
        + (f"+solver:n={args.exact_nodes}" if args.exact_nodes else "")
        + f", {args.games} games recorded, {args.tournament} tournament games a pair and seat, "
        f"{os.cpu_count()} CPUs"
    )
    table = Table(["workers", "start-up s", "positions recorded and annotated / s"], title=title)
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
    show([table], args.json)
    return 0


def load() -> str:
    """The machine's load average over 1, 5 and 15 minutes (as `uptime` shows it)."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(count: int, args: argparse.Namespace, say=print) -> dict[str, float]:
    """Start-up seconds, positions annotated a second and tournament games a second."""
    from mancala.ai.registry import make_player
    from mancala.arena.parallel import GameJob, Seat, Workers
    from mancala.arena.tournament import run_tournament
    from mancala.game_state import GameState
    from mancala.learn.practice import Practice

    began = time.perf_counter()
    with Workers(count) as workers:
        luck = [GameJob((0, 0), GameState.new(), (), seed) for seed in range(count)]
        list(workers.play([Seat("luck")], luck))
        start = time.perf_counter() - began
        seats = [Seat.of(make_player(spec, seed=0), explore=0.1) for spec in PLAYERS]
        rng = random.Random(0)
        with tempfile.TemporaryDirectory() as folder:
            practice = Practice(
                Path(folder) / "games.jsonl",
                args.teacher,
                exact_nodes=args.exact_nodes,
                workers=workers,
            )
            practice.play([(a, b) for a in seats for b in seats if a is not b], 1)  # warm-up
            pairings = [tuple(rng.sample(seats, 2)) for _ in range(args.games)]
            timer, cpu = time.perf_counter(), workers.cpu_seconds()
            records = practice.play(pairings, 1)
            seconds = time.perf_counter() - timer
            cpu = workers.cpu_seconds() - cpu
        positions = sum(len(record["values"]) for record in records)
        run_tournament(PLAYERS, 4, GameState.new(), progress=False, workers=workers)  # warm-up
        timer, tournament_cpu = time.perf_counter(), workers.cpu_seconds()
        run_tournament(PLAYERS, args.tournament, GameState.new(), progress=False, workers=workers)
        tournament_seconds = time.perf_counter() - timer
        tournament_cpu = workers.cpu_seconds() - tournament_cpu
    games = len(PLAYERS) * (len(PLAYERS) - 1) * args.tournament
    row = {
        "workers": count,
        "start": start,
        "positions": positions / seconds,
        "position_cpu": 1000 * cpu / positions,
        "games": games / tournament_seconds,
        "game_cpu": 1000 * tournament_cpu / games,
    }
    say(
        f"{count} worker(s): start-up {start:.1f} s, {row['positions']:.0f} positions/s "
        f"({row['position_cpu']:.2f} CPU ms each), {row['games']:.0f} tournament games/s "
        f"({row['game_cpu']:.2f} CPU ms each); load average {load()}",
        flush=True,
    )
    return row


if __name__ == "__main__":
    sys.exit(main())
