"""Solve a Kalah position exactly: its value and best moves, with time, nodes and nodes/s.

    mancala solve                           # Kalah(6,4), standard capture
    mancala solve --empty-capture           # the rule of the published solutions
    mancala solve --houses 4 --seeds 3 --all
    mancala solve '{"board": [0,5,5,5,5,4,0,4,4,4,4,4,4,0], "player": 1}'
    mancala solve --seeds 5 --max-seeds 24 --tt-bits 28 --save kalah65.json

--save FILE proves every move and saves each to FILE as soon as it is proved, with a
progress line every 15 s; run the same command again after a stop to go on from there.
Its moves are proved side by side by --workers threads (every core), each with a table
of 2**tt-bits entries of 16 bytes.

The value is the final store difference, for the player to move, with perfect play from
both sides. The endgame database is built on first use and cached in cache/.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from mancala.ai.minimax import Minimax
from mancala.commands.options import add_game_options, add_solver_options, game_options
from mancala.core.cli import command_parser, int_in
from mancala.core.stopping import run_command
from mancala.game_state import KALAH, GameState
from mancala.games import DEFAULT_GAME, games_with
from mancala.games.sowing.drawing import house_label
from mancala.games.sowing.solver import Solver, check_solvable
from mancala.games.sowing.solver.book import GUESS_DEPTH, first_guess
from mancala.games.sowing.solver.campaign import solve_every_move
from mancala.games.sowing.solver.options import solver_for


def parse_position(text: str | None, options: dict) -> GameState:
    """The position of `text` (JSON: board, player, empty_capture, houses, seeds), or the
    opening; `options` (houses, seeds, empty_capture) come from the command line.

    >>> parse_position('{"board": [1, 2], "player": 0}', {})
    Traceback (most recent call last):
    ...
    ValueError: board has 2 pits; Kalah with 6 houses needs 14
    >>> parse_position('[1, 2]', {})
    Traceback (most recent call last):
    ...
    ValueError: a position is a JSON object like {"board": [...], "player": 0}
    """
    if text is None:
        return GameState.new(KALAH, **options)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"the position is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise ValueError('a position is a JSON object like {"board": [...], "player": 0}')
    unknown = set(data) - {"board", "player", "empty_capture", "houses", "seeds", "variant"}
    if unknown:
        raise ValueError(f"unknown key(s) in the position: {', '.join(sorted(unknown))}")
    variant = data.get("variant", DEFAULT_GAME)
    solvable = games_with("solver")
    if variant not in solvable:
        raise ValueError(f"the solver plays {', '.join(solvable)}, not {variant!r}")
    board = data.get("board")
    if not isinstance(board, list):
        raise ValueError("the position needs a board: a list of seed counts")
    opts = dict(options)
    for key in ("empty_capture", "houses", "seeds"):
        if key in data:
            opts[key] = data[key]
    if "houses" not in opts and len(board) % 2 == 0 and len(board) >= 4:
        opts["houses"] = len(board) // 2 - 1
    if "seeds" not in opts and "houses" in opts:
        total = sum(c for c in board if isinstance(c, int))
        if total % (2 * opts["houses"]) == 0 and total > 0:
            opts["seeds"] = total // (2 * opts["houses"])
    return GameState.new(variant, board, data.get("player", 0), **opts)


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala solve", __doc__)
    parser.add_argument("position", nargs="?", help='JSON: {"board": [...], "player": 0}')
    add_game_options(parser, games_with("solver"))
    parser.add_argument("--all", action="store_true", help="the exact value of every move")
    parser.add_argument(
        "--save", metavar="FILE", help="resumable: every move, each saved to FILE when proved"
    )
    parser.add_argument(
        "--workers",
        type=int_in(1, 64),
        default=os.cpu_count() or 1,
        help="with --save: moves proved side by side, a table each (every core)",
    )
    add_solver_options(parser)
    args = parser.parse_args(argv)
    kept = "an endgame database is cached only once it is whole"
    if args.save:
        kept = f"every proved move is in {args.save}: the same command goes on from there"
    return run_command("mancala solve", lambda: _solve(args), kept)


def _solve(args: argparse.Namespace) -> int:
    """Solve the position of `args` and print its value, best moves and costs."""
    state = parse_position(args.position, game_options(args))
    check_solvable(state)
    began, cpu = time.perf_counter(), time.process_time()
    solver = solver_for(state, max_seeds=args.max_seeds, tt_bits=args.tt_bits)
    search_cpu = time.process_time()
    if args.save:
        result = _campaign(solver, state, args.save, args.workers)
    else:
        result = solver.solve(state, all_moves=args.all)
    search_cpu = time.process_time() - search_cpu
    rule = "empty capture" if state.empty_capture else "standard capture"
    print(f"Kalah({state.houses},{state.seeds}), {rule}; player {state.player} to move:")
    print(state)
    value = result["value"]
    verdict = "wins" if value > 0 else "loses" if value < 0 else "draws"
    print(f"value {value:+d}: the player to move {verdict} by {abs(value)} with perfect play")
    best = ", ".join(f"{m} ({house_label(m)})" for m in sorted(result["best"]))
    print(f"best move(s): {best}")
    if args.all or args.save:
        print("every move: " + ", ".join(f"{m}: {v:+d}" for m, v in result["moves"].items()))
    seconds = result["seconds"]
    print(
        f"search {seconds:.2f} s (CPU {search_cpu:.2f} s), {result['nodes']:,} nodes, "
        f"{result['nodes'] / max(seconds, 1e-9) / 1e6:.2f} M nodes/s; endgame database "
        f"({solver.max_seeds} seeds, {len(solver.db):,} boards): "
        + (f"built in {solver.db_seconds:.1f} s" if solver.db_seconds else "from the cache")
        + f"; total {time.perf_counter() - began:.1f} s (CPU {time.process_time() - cpu:.1f} s)"
    )
    return 0


def _campaign(solver: Solver, state: GameState, path: str, workers: int) -> dict:
    """`solve_every_move` into `path`, started from minimax's guesses; as `Solver.solve`
    reports it (nodes and seconds of this run)."""
    began, nodes = time.perf_counter(), solver.nodes
    guesser = Minimax(seed=0, depth=GUESS_DEPTH)
    solver.progress = False  # the campaign's lines report the passes
    record = solve_every_move(
        solver, state, Path(path), lambda s: first_guess(s, guesser), workers=workers
    )
    moves = {int(m): e["value"] for m, e in sorted(record["moves"].items())}
    print(f"saved in {path}: {record['nodes']:,} nodes, {record['seconds']:.0f} s in all runs")
    return {
        "value": record["value"],
        "moves": moves,
        "best": record["best"],
        "nodes": solver.nodes - nodes,
        "seconds": time.perf_counter() - began,
    }


if __name__ == "__main__":
    sys.exit(main())
