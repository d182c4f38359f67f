"""The main job's throughput: games and labelled positions an hour, and the share of the
run in which the workers play, with each batch waiting for the refits and with the next
batch played during them.

    mancala bench loop                         # the default job on 2 workers, 3 batches each way
    mancala bench loop --batches 2 -- nn1h128 greedy minimax:2 --games 96

Runs `mancala train --workers N` twice in turn, each for --batches batches in a run folder
of its own that is removed afterwards: first with `--wait-for-refits` (each batch handed
out once the refits and gates of the last are done: the workers wait meanwhile), then as
the job runs by default (the next batch played during them). Anything after `--` goes to
both runs as it is (players, --games, --variant ...). A run's time is its wall-clock time
from start to exit: reading the shipped labels, Ray's start-up, every batch and its gate.
Games and labelled positions are counted in the run's games file; the workers' busy share
is the one its last batch logged (`mancala.learn.practice.Practice.busy_share`). "Per
CPU-hour" divides by the machine's CPUs, all of which the run had.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mancala.arena.records import GameLog
from mancala.core.cli import command_parser, int_in
from mancala.core.paths import ROOT
from mancala.core.report import Table, show
from mancala.core.stopping import run_command

WAYS = {"wait for the refits": ["--wait-for-refits"], "play during them": []}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    passed = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = command_parser("mancala bench loop", __doc__)
    parser.add_argument("--workers", type=int_in(1), default=2, help="Ray workers (2)")
    parser.add_argument("--batches", type=int_in(1), default=3, help="batches a run (3)")
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(own)
    return run_command("mancala bench loop", lambda: _bench(args, passed), "nothing was kept")


def _bench(args: argparse.Namespace, passed: list[str]) -> int:
    say = print if not args.json else lambda line, **_: print(line, file=sys.stderr)
    rows = {way: measure(args, passed + extra, say) for way, extra in WAYS.items()}
    cpus = os.cpu_count() or 1
    title = (
        f"mancala train {' '.join(passed) or '(the default job)'}: {args.batches} batches on "
        f"{args.workers} Ray workers, {cpus} CPUs"
    )
    table = Table(["schedule", "minutes", "games", "labelled positions"], title=title)
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
    show([table], args.json)
    return 0


def measure(args: argparse.Namespace, extra: list[str], say=print) -> dict[str, float]:
    """Seconds, games, labelled positions and the workers' busy share of one run."""
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "run"
        command = [sys.executable, "-m", "mancala", "train", "--run", str(run)]
        command += ["--batches", str(args.batches), "--workers", str(args.workers), *extra]
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
