"""Make (or finish) a set of solved positions from every stage of real Kalah games.

    mancala solve set                      # the shipped whole-game set
    mancala solve set --positions 50 --out /tmp/set.jsonl --houses 4 --seeds 3
    mancala solve set --workers 2          # two positions at once, a process each

Positions are solved from the endgame back to the opening (the early ones take the solver
minutes each); each is appended the moment it is proved, so Ctrl+C or SIGTERM (which stop
the search at once) lose at most the ones being proved, and running the same command
again continues. A position still being solved says so every 15 s. A position whose
every move a solve record in --records proves (the file of `mancala solve`'s --save:
the opening's, say) takes its values, nodes and seconds from there. With `--workers N`
N processes prove positions at once, each with its own transposition table and its own
copy of the endgame database (memory: N times both); the next position goes to the
first process free, so the set still fills from the endgame back. The set is
what `mancala measure perfect` and the learning curve measure players against (see
mancala/arena/solved_set.py for the file's format).
"""

from __future__ import annotations

import multiprocessing
import queue
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tqdm import tqdm

from mancala.arena.solved_set import Solved, build, seeds_in_houses, set_file, solved_in_turn
from mancala.commands.options import add_game_options, add_solver_options, game_options
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.paths import DATA_DIR
from mancala.core.stopping import run_command
from mancala.game_state import GameState
from mancala.games import games_with, new_game
from mancala.games.sowing.solver.campaign import proved_in_records
from mancala.games.sowing.solver.options import database_cached, solver_for

RECORDS = DATA_DIR / "solved"  # the records of `mancala solve --save`
MAX_POSITIONS = 10_000
MAX_WORKERS = 64
EVERY = 15.0  # seconds between the lines of a position still being solved

SolveMany = Callable[[list[GameState]], Solved]  # `build`'s: the states, proved as they come


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala solve set", __doc__)
    parser.add_argument(
        "--positions", type=int_in(1, MAX_POSITIONS), default=500, help="positions (500)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", type=Path, help="the set's file (the whole-game set of the board's rules)"
    )
    parser.add_argument(
        "--workers", type=int_in(1, MAX_WORKERS), default=1, help="processes proving at once"
    )
    parser.add_argument(
        "--records", type=Path, default=RECORDS, help="records of mancala solve --save"
    )
    add_game_options(parser, games_with("solver"))
    add_solver_options(parser)
    args = parser.parse_args(argv)
    try:
        from mancala.games.sowing.solver import check_solvable

        start = new_game(args.variant, **game_options(args))
        check_solvable(start)
    except ValueError as error:
        return fail("mancala solve set", str(error))
    args.out = args.out or set_file(start)
    argv = sys.argv[1:] if argv is None else argv
    command = shlex.join(["mancala", "solve", "set", *argv])
    kept = f"every position proved so far is in {args.out}; run the same command to continue"
    body = _build if args.workers == 1 else _build_in_workers
    return run_command("mancala solve set", lambda: body(args, start, command), kept)


def _progress(bar: tqdm) -> Any:
    """`build`'s progress callback: the bar moves a position, saying what it was."""

    def shown(done: int, total: int, line: dict) -> None:
        bar.total = total
        bar.set_postfix(ply=line["ply"], seeds=line["seeds"], s=f"{line['seconds']:.1f}")
        bar.update(1)

    return shown


def _build(args, start: GameState, command: str) -> int:
    solver = solver_for(start, max_seeds=args.max_seeds, tt_bits=args.tt_bits)
    solver.progress = False
    bar = tqdm(desc="solving", unit="pos", file=sys.stderr)
    now: dict = {}  # the position being solved: its seeds, when it began, the nodes then

    def solve(state: GameState) -> dict:
        now.update(seeds=seeds_in_houses(state), began=time.perf_counter())
        now["nodes"] = solver.nodes_now()
        return solver.solve(state)

    shown = _progress(bar)
    outcome: dict = {}

    def work() -> None:
        try:
            in_turn = from_records(args.records, lambda states: solved_in_turn(states, solve))
            outcome["solved"] = build(
                args.out, start, args.positions, args.seed, command, solve, shown, in_turn
            )
        except Exception as error:  # noqa: BLE001 - given to the main thread
            outcome["error"] = error

    thread = threading.Thread(target=work, name="solve set", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(EVERY)
            if thread.is_alive() and now:
                seconds = time.perf_counter() - now["began"]
                nodes = solver.nodes_now() - now["nodes"]
                bar.write(f"a position of {now['seeds']} seeds: {seconds:.0f} s, {nodes:,} nodes")
    except KeyboardInterrupt:  # Ctrl+C or SIGTERM: the search stops at once
        solver.stop()
        thread.join()
        raise
    finally:
        bar.close()
    if isinstance(outcome.get("error"), ValueError):
        return fail("mancala solve set", str(outcome["error"]))
    if "error" in outcome:
        raise outcome["error"]
    print(f"{outcome['solved']} position(s) solved now; the set is {args.out}")
    return 0


_SOLVER: Any = None  # a worker's solver


def _start_worker(args, start: GameState) -> None:
    global _SOLVER
    _SOLVER = solver_for(start, max_seeds=args.max_seeds, tt_bits=args.tt_bits)
    _SOLVER.progress = False


def _prove(k: int, state: GameState) -> tuple[int, dict, float]:
    began = time.perf_counter()
    result = _SOLVER.solve(state)
    return k, {"moves": result["moves"], "nodes": result["nodes"]}, time.perf_counter() - began


def in_workers(args, start: GameState, bar: tqdm) -> SolveMany:
    """A `solve_many` for `build`: the states proved by `args.workers` processes, each
    yielded as it is proved, a line every EVERY seconds while they work."""

    def solve_many(states: list[GameState]) -> Solved:
        context = multiprocessing.get_context("spawn")
        done: queue.Queue = queue.Queue()
        with context.Pool(args.workers, _start_worker, (args, start)) as pool:
            for k, state in enumerate(states):
                pool.apply_async(_prove, (k, state), callback=done.put, error_callback=done.put)
            yield from _as_proved(done, len(states), bar)

    return solve_many


def _as_proved(done: queue.Queue, total: int, bar: tqdm) -> Iterator[tuple[int, dict, float]]:
    began = time.perf_counter()
    for n in range(total):
        while True:
            try:
                answer = done.get(timeout=EVERY)
                break
            except queue.Empty:
                bar.write(f"{n} of {total} proved now, {time.perf_counter() - began:.0f} s")
        if isinstance(answer, BaseException):
            raise answer
        yield answer


def from_records(folder: Path, solve_many: SolveMany) -> SolveMany:
    """A `solve_many` for `build` that answers the states a record in `folder` proves from
    it, and gives `solve_many` the others."""
    proved = proved_in_records(folder)

    def many(states: list[GameState]) -> Solved:
        rest = []
        for k, state in enumerate(states):
            found = proved.get(state)
            if found is None:
                rest.append(k)
            else:
                yield k, found, found["seconds"]
        for j, result, seconds in solve_many([states[k] for k in rest]) if rest else ():
            yield rest[j], result, seconds

    return many


def _build_in_workers(args, start: GameState, command: str) -> int:
    # the database is built and cached once, before the workers read it
    if not database_cached(start, max_seeds=args.max_seeds):
        solver_for(start, max_seeds=args.max_seeds, tt_bits=args.tt_bits)
    bar = tqdm(desc="solving", unit="pos", file=sys.stderr)
    try:
        many = from_records(args.records, in_workers(args, start, bar))
        solved = build(
            args.out, start, args.positions, args.seed, command, None, _progress(bar), many
        )
    finally:
        bar.close()
    print(f"{solved} position(s) solved now; the set is {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
