"""Label many games exactly: every legal move of every position, by the solver.

    mancala solve labels --games 1000                # runs/labels/kalah-h6-s4-seed0.jsonl
    mancala solve labels --games 1000 --workers 2    # two games at once (Ray)
    mancala solve labels --games 1000 --up-to 36     # label the cheap stages only
    mancala solve labels --report mancala/data/kalah/*.jsonl.xz   # labels by stage
    mancala solve labels --plies 3 --nodes 2000000000   # runs/labels/kalah-h6-s4-plies.jsonl

The games pair players of the strong pool (deep alpha-beta, the best networks) and of the
main job's mixed pool after a few random plies (mancala/learn/labels.py). Every position
is valued from the game's end back to its start: the exact value of every legal move
where the solver proves it within --nodes nodes (with the largest endgame database
cached, or --max-seeds), else alpha-beta's value to --depth plies, and the record's
"exact" says which. --up-to S labels only the positions with at most S seeds in the
houses (the stages where proofs take milliseconds: docs/perfect_play.md); the fuller
positions of each game are recorded unlabelled. Each game is appended whole the moment
it is labelled; Ctrl+C or SIGTERM keep every finished game, and the same command
continues with the games not yet written (a damaged line is skipped and counted, and its
game labelled again). --plies K labels instead every position a game can reach in its
first K moves, each once (the opening's proofs, which the games rarely finish): the line
to it and its best move, labelled, a record each (`mancala.learn.labels.FirstPlies`); give
them the --nodes a proof of the opening needs. A larger K goes on in the same file with the
positions of the plies after. The end, and --report, print the labels by
stage of the game (seeds left in the houses): how many, the share exact and labels per
core-hour.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from tqdm import tqdm

from mancala.arena.parallel import Workers
from mancala.arena.records import GameLog, append_games
from mancala.commands.options import add_game_options, add_workers_arguments, game_options
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.paths import RUNS_DIR
from mancala.core.report import Table
from mancala.core.stopping import run_command
from mancala.games import games_with, new_game
from mancala.learn.labels import (
    FirstPlies,
    Labelling,
    done_indices,
    header,
    labels_stem,
    read_header,
    stage_report,
)
from mancala.learn.teacher import Proofs, Teaching

MAX_GAMES = 10_000_000
NODES = 1_000_000  # a position's proof budget (docs/perfect_play.md: the cost of each)
DEPTH = 8  # alpha-beta where a proof does not fit (the first plies): the refits learn the
# exact labels alone (docs/perfect_play.md), so a deeper search there only costs time


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala solve labels", __doc__)
    parser.add_argument("--games", type=int_in(1, MAX_GAMES), default=1000, help="games (1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="the labels' file (runs/labels/...)")
    parser.add_argument(
        "--nodes", type=int_in(0, 10**10), default=NODES, help=f"a proof's budget ({NODES:,})"
    )
    parser.add_argument(
        "--depth", type=int_in(1, 20), default=DEPTH, help=f"alpha-beta's depth ({DEPTH})"
    )
    parser.add_argument(
        "--max-seeds", type=int_in(0, 28), help="endgame database (default: the largest cached)"
    )
    parser.add_argument(
        "--up-to", type=int_in(0, 1000), metavar="SEEDS", help="label these stages only"
    )
    parser.add_argument(
        "--plies", type=int_in(0, 8), metavar="K", help="label the first K plies' positions"
    )
    parser.add_argument(
        "--report", nargs="+", type=Path, metavar="FILE", help="only print the stage table"
    )
    add_game_options(parser, games_with("solver"))
    add_workers_arguments(parser)
    args = parser.parse_args(argv)
    if args.report:
        missing = [str(p) for p in args.report if not p.is_file()]
        if missing:
            return fail("mancala solve labels", f"no such file: {', '.join(missing)}")
        print(stage_table(GameLog(args.report)))
        return 0
    try:
        from mancala.games.sowing.solver import check_solvable
        from mancala.games.sowing.solver.database import database_seeds

        start = new_game(args.variant, **game_options(args))
        check_solvable(start)
        max_seeds = database_seeds(start, args.max_seeds)
    except ValueError as error:
        return fail("mancala solve labels", str(error))
    name = "plies" if args.plies is not None else f"seed{args.seed}"
    args.out = args.out or RUNS_DIR / "labels" / f"{labels_stem(start)}-{name}.jsonl"
    argv = sys.argv[1:] if argv is None else argv
    command = shlex.join(["mancala", "solve", "labels", *argv])
    kept = f"all labelled so far is in {args.out}; run the same command to continue"
    return run_command(
        "mancala solve labels", lambda: _label(args, start, max_seeds, command), kept
    )


def _label(args: argparse.Namespace, start, max_seeds: int, command: str) -> int:
    if args.plies is None:
        labelling: Labelling | FirstPlies = Labelling(args.seed, start)
        teaching = Teaching(
            args.depth, args.nodes, start.game, max_seeds=max_seeds, up_to=args.up_to
        )
        teacher = teaching.make()
        total, unit = args.games, "game"
    else:
        proofs = Proofs(args.depth, args.nodes, max_seeds)
        labelling, teaching = FirstPlies(args.plies, start, proofs), None
        teacher = proofs.make().teacher
        total, unit = len(labelling.lines), "position"
    wanted = header(labelling, command, teacher.name)
    wanted["max_seeds"] = max_seeds
    if args.out.is_file() and args.out.stat().st_size:
        found = read_header(args.out)
        same = ("format", "variant", "options", "seed", "teacher", "first_plies")
        if found is None or any(found.get(k) != wanted.get(k) for k in same):
            raise ValueError(f"{args.out} holds other labels; name another --out")
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        append_games(args.out, [wanted])
    done = done_indices(args.out)
    todo = [i for i in range(total) if i not in done]
    if not todo:
        print(f"all {total} {unit}s are labelled in {args.out}")
        return 0
    teacher.solver(start)  # the endgame database, built or loaded before the games (and
    # before the first position's clock starts)
    jobs = [labelling.job(i) for i in todo]
    bar = tqdm(total=total, initial=len(done), desc="labelling", unit=unit, file=sys.stderr)
    counts = {"positions": 0, "exact": 0}
    began = time.perf_counter()
    with Workers(args.workers, args.address) as workers:
        for batch in workers.play_batches(labelling.seats(), jobs, teaching):
            records = []
            for finished in batch:
                record = finished.record
                record["label"] = todo[finished.index]
                records.append(record)
                counts["positions"] += sum(row is not None for row in record["values"])
                counts["exact"] += sum(bool(exact) for exact in record["exact"])
            append_games(args.out, records)  # whole lines, Ctrl+C and SIGTERM held off
            bar.update(len(records))
            rate = counts["positions"] / (time.perf_counter() - began)
            share = 100 * counts["exact"] / max(1, counts["positions"])
            bar.set_postfix_str(f"{rate:.0f} pos/s, {share:.1f}% exact")
    bar.close()
    print(f"{len(todo)} {unit}(s) labelled now; the labels are in {args.out}\n")
    print(stage_table(GameLog([args.out])))
    return 0


def stage_table(records) -> str:
    """Markdown: labels by stage of the game (seeds in the houses)."""
    table = Table(["seeds in houses", "positions", "exact %", "labels / core-hour"])
    for row in stage_report(r for r in records if "values" in r):
        share = 100 * row["exact"] / row["positions"] if row["positions"] else 0.0
        rate = f"{row['per_core_hour']:,.0f}" if row["per_core_hour"] else "-"
        table.add(row["stage"], f"{row['positions']:,}", f"{share:.1f}", rate)
    return table.markdown()


if __name__ == "__main__":
    sys.exit(main())
