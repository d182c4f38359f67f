"""Speed of the rules, the numba engine, OpenSpiel and the search players, on this machine.

    mancala bench                 # the table (Kalah(6,4)), about a minute
    mancala bench --games 20000   # more random games for the engines' rows
    mancala bench --verify        # a million moves through engine and rules
    mancala bench --teacher       # positions annotated a second, before and after
    mancala bench --tak 5         # Tak: perft by both engines, then the alpha-beta
    mancala bench --solve         # the Kalah solver on fixed positions, no book

Every number comes from this one run, so the ratios compare like with like on a shared,
noisy machine. Rates are per second of this process's CPU time (`time.process_time`:
one core, and other jobs on the machine do not count against it); seconds a move are
wall-clock, as a player's opponent sees them, and `minimax:t=1.0` stops by the wall
clock. Random games are Kalah(6,4) from the opening, uniform legal moves, the same
number of games through each engine. OpenSpiel (`pyspiel`) is optional: without
it its rows are left out.

`--verify` plays random games of Kalah(6,4) (both capture rules), Kalah(4,3) and Sungka
through both `mancala.games.sowing.engine` and `mancala.game_state` until a million moves have been
compared, board and player to move after every move, and reports the mismatches (it
exits 1 if there is any).

`--teacher` annotates the recorded games of training/sample_kalah.jsonl twice with the
exact teacher of the learning loop (the solver's values within 20,000 nodes, minimax:10
elsewhere): valuing each position on its own in game order, as the first version did,
then chained from each game's end back to its start (`mancala.learn.teacher.Teacher`).

`--tak SIZE` first times perft from the opening of a SIZE board
(`mancala.games.tak.perft.bench`: the readable rules to depth 3, the numba engine to
depth 4, and the numba engine's random games in plies a second), then Tak's alpha-beta
on the numba engine (`mancala.games.tak.search`) on positions after 10, 40 and 80 random
plies: each depth from 1 to 4 with a new table,
the generic alpha-beta (`mancala.ai.search_generic`) to depth 3 on the same positions
(the same algorithm: the same nodes), and the depth reached in 0.1 s.

`--solve` times the exact solver (`mancala.games.sowing.solver.Solver`, standard capture,
the endgame database of 20 seeds: built on first use) on fixed positions, each with a new
transposition table and no opening book, from MTD(f)'s default first guess: Kalah(6,3)
from the opening with every move's value, then five Kalah(6,4) positions 4 to 10 plies
into random games; `--solve all` adds Kalah(6,4) from the opening (half a minute or more).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time

import numpy as np

from mancala.ai.registry import make_player
from mancala.arena.match import play_game
from mancala.arena.openings import opening_going_on
from mancala.arena.tournament import Timed
from mancala.core.cli import command_parser, int_in
from mancala.core.report import Table, show
from mancala.core.stopping import run_command
from mancala.game_state import KALAH, SUNGKA, GameState
from mancala.games import capabilities, describe, new_game
from mancala.games.sowing import engine
from mancala.games.tak.state import TakState
from mancala.nn_lib.policy_value import AZ_GAMES

DEFAULT_PLAYERS = ["minimax", "mcts", "nmcts", "greedy", "openspiel-mcts"]
VERIFY_RULES = [
    GameState.new(KALAH),
    GameState.new(KALAH, empty_capture=True),
    GameState.new(KALAH, houses=4, seeds=3),
    GameState.new(SUNGKA),
]


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def rules_games(games: int, seed: int) -> tuple[float, int]:
    """Seconds and moves for `games` random games through `game_state`."""
    rng = random.Random(seed)
    start, moves = GameState.new(), 0
    began = time.process_time()
    for _ in range(games):
        state = start
        while not state.is_over():
            state = state.play(rng.choice(state.legal_moves()))
            moves += 1
    return time.process_time() - began, moves


def engine_games(games: int, seed: int) -> tuple[float, int]:
    """Seconds and moves for `games` random games through the numba engine."""
    board, player, rules = engine.to_arrays(GameState.new())
    engine.random_games(board, player, *rules, 10, seed)  # compile or load from cache
    began = time.process_time()
    *_, moves = engine.random_games(board, player, *rules, games, seed)
    return time.process_time() - began, int(moves)


def pyspiel_games(games: int, seed: int) -> tuple[float, int]:
    """Seconds and moves for `games` random games of OpenSpiel's `mancala` via pyspiel."""
    import pyspiel

    game = pyspiel.load_game("mancala")
    rng = random.Random(seed)
    moves = 0
    began = time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
    return time.process_time() - began, moves


def search_rates() -> list[tuple[str, str]]:
    """Rows: minimax nodes/s and depth in 1 s, MCTS simulations/s, nmcts playouts/s."""
    opening = GameState.new()
    minimax = make_player("minimax:t=1.0", seed=0)
    began = time.process_time()
    minimax.choose_move(opening)
    took = time.process_time() - began
    rows = [
        (
            "minimax:t=1.0 from the opening",
            f"{minimax.nodes / took:,.0f} nodes/s, depth {minimax.reached} "
            f"({minimax.nodes:,} nodes in {took:.2f} s of CPU)",
        )
    ]
    for start in (opening, new_game(TakState.game, **AZ_GAMES[TakState.game])):
        row, rate = mcts_rate(start, 200_000)
        rows += [row, az_rate(start, rate)]
    player = make_player("nmcts:1000", seed=0)
    player.choose_move(opening)
    player = make_player("nmcts:200000", seed=0)
    began = time.process_time()
    player.choose_move(opening)
    took = time.process_time() - began
    rows.append(("nmcts:200000 from the opening", f"{200_000 / took:,.0f} playouts/s"))
    return rows


def mcts_rate(opening: GameState, count: int) -> tuple[tuple[str, str], float]:
    """(row, rate): mcts's simulations/s (its game's default leaf values) from `opening`."""
    make_player("mcts:1000", seed=0).choose_move(opening)  # compile or load from cache
    player = make_player(f"mcts:{count}", seed=0)
    began = time.process_time()
    player.choose_move(opening)
    rate = count / (time.process_time() - began)
    return (f"mcts:{count} from the opening{_of(opening)}", f"{rate:,.0f} simulations/s"), rate


def _of(opening: GameState) -> str:
    """'' for Kalah's standard opening, else ' of' the game in words."""
    return "" if opening == GameState.new() else f" of {describe(opening)}"


def az_rate(opening: GameState, mcts_rate: float | None = None) -> tuple[str, str]:
    """Row: az's simulations/s (the network valuing every leaf) from `opening`, beside
    plain mcts's `mcts_rate` when given."""
    spec = "az:100000" if "sowing" in capabilities(opening) else "az:20000"
    where = f"{spec} from the opening{_of(opening)}"
    try:
        make_player("az:1000", seed=0).search(opening)  # load weights, compile (a move
        # from the opening could come from the solver's book, without a search)
    except ValueError as error:  # no policy-value weights
        return (where, f"not measured ({error})")
    player = make_player(spec, seed=0)
    began = time.process_time()
    visits, *_ = player.search(opening)
    rate = visits.sum() / (time.process_time() - began)
    beside = f", {rate / mcts_rate:.2f}x mcts" if mcts_rate else ""
    return (where, f"{rate:,.0f} network-evaluated simulations/s{beside}")


def seconds_per_move(specs: list[str], games: int, seed: int) -> list[tuple[str, str]]:
    """Rows: mean seconds a move of each player over `games` games against luck."""
    rows = []
    for spec in specs:
        try:
            player = make_player(spec, seed=seed)
        except ValueError as error:  # e.g. openspiel-mcts without pyspiel
            rows.append((f"{spec}: seconds a move", f"not measured ({error})"))
            continue
        player.choose_move(GameState.new())  # compile or load from cache
        clock = {spec: [0.0, 0]}
        timed = Timed(player, clock)  # the tournament's stopwatch
        for game in range(games):
            play_game([timed, make_player("luck", seed=seed + game)], seed=seed)
        rows.append(
            (
                f"{spec}: seconds a move",
                f"{clock[spec][0] / clock[spec][1]:.3g} ({clock[spec][1]} moves, wall clock)",
            )
        )
    return rows


def bench(games: int, timed_games: int, seed: int) -> Table:
    """The table of one run."""
    table = Table(["what", "measured"], title=_title("Kalah(6,4)"))
    _say(f"random games: {games} through each engine ...")
    runs = {
        "rules (game_state)": rules_games(games, seed),
        "numba engine": engine_games(games, seed),
    }
    if importlib.util.find_spec("pyspiel") is not None:
        runs["OpenSpiel mancala (pyspiel)"] = pyspiel_games(games, seed)
    base = runs.get("OpenSpiel mancala (pyspiel)")
    for name, (took, moves) in runs.items():
        ratio = f", {base[0] / took:.2f}x pyspiel" if base else ""
        table.add(
            f"{name}: {games} random games",
            f"{games / took:,.0f} games/s, {moves / took:,.0f} moves/s{ratio}",
        )
    _say("search players ...")
    table.rows += [list(row) for row in search_rates()]
    _say(f"seconds a move over {timed_games} game(s) against luck ...")
    table.rows += [list(row) for row in seconds_per_move(DEFAULT_PLAYERS, timed_games, seed)]
    return table


def verify(target: int, seed: int) -> int:
    """Random games through engine and rules until `target` moves; the mismatches."""
    rng = random.Random(seed)
    compared = mismatches = games = 0
    began = last = time.perf_counter()
    while compared < target:
        start = VERIFY_RULES[games % len(VERIFY_RULES)]
        games += 1
        board, player, rules = engine.to_arrays(start)
        state = start
        while not state.is_over() and compared < target:
            move = rng.choice(state.legal_moves())
            player = engine.play(board, player, move, *rules)
            state = state.play(move)
            compared += 1
            if player != state.player or not np.array_equal(board, state.board):
                mismatches += 1
                _say(f"mismatch after move {move}: rules {state.board} {state.player}")
                board, player = engine.to_arrays(state)[:2]  # carry on from the rules
        if engine.is_over(board, rules[0], rules[1]) != state.is_over():
            mismatches += 1
            _say(f"mismatch: the game is over by one and not the other: {state.board}")
        if time.perf_counter() - last > 5:
            last = time.perf_counter()
            _say(f"{compared:,} moves compared in {games:,} games, {mismatches} mismatches")
    took = time.perf_counter() - began
    print(
        f"{compared:,} moves in {games:,} random games (Kalah(6,4) both capture rules, "
        f"Kalah(4,3), Sungka) compared move for move in {took:.0f} s: {mismatches} mismatches"
    )
    return mismatches


def teacher_rates(games: int, depth: int = 10, exact_nodes: int = 20_000) -> Table:
    """Positions annotated a second of CPU time by each way of the teacher."""
    import itertools

    from mancala.ai.solver import shared_solver
    from mancala.arena.records import GameLog
    from mancala.core.paths import TRAINING_DIR
    from mancala.learn.teacher import Teacher

    records = list(itertools.islice(GameLog([TRAINING_DIR / "sample_kalah.jsonl"]), games))
    shared_solver(GameState.new())  # the endgame database: loaded (or built) before timing
    what = f"teacher minimax:{depth}+solver:n={exact_nodes}, {len(records)} games"
    table = Table([what, "positions/s", "exact", "x first version"], title=_title("Kalah(6,4)"))
    first = None
    for label, chain in (("each position alone (first version)", False), ("chained", True)):
        teacher = Teacher(depth, exact_nodes, chain=chain)
        _say(f"teacher: {label} ...")
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


SOLVE_POSITIONS = [  # (board with stores, player to move) of Kalah(6,4), 4 to 10 plies in
    ([3, 6, 6, 0, 0, 6, 2, 6, 0, 6, 2, 1, 7, 3], 0),
    ([2, 8, 6, 0, 0, 6, 2, 1, 7, 0, 3, 2, 8, 3], 0),
    ([1, 10, 6, 6, 0, 1, 8, 1, 1, 1, 1, 7, 0, 5], 1),
    ([2, 0, 7, 2, 7, 7, 2, 6, 5, 4, 0, 1, 2, 3], 0),
    ([3, 1, 7, 1, 1, 1, 5, 1, 9, 8, 2, 7, 0, 2], 0),
]


def solve_rates(opening: bool) -> Table:
    """Value, nodes and CPU seconds of exact solves without the book (`--solve`)."""
    from mancala.games.sowing.solver import TT_BITS, Solver

    solver = Solver(6, tt_bits=TT_BITS + 1)  # as `mancala.solve`; the database loaded now
    solver.solve(GameState.new(KALAH, seeds=2), all_moves=False)  # numba compiled
    cases = [("Kalah(6,3) opening, every move", GameState.new(KALAH, seeds=3), True)]
    for i, (board, player) in enumerate(SOLVE_POSITIONS):
        cases.append((f"Kalah(6,4) position {i + 1}", GameState.new(KALAH, board, player), False))
    if opening:
        cases.append(("Kalah(6,4) opening", GameState.new(KALAH), False))
    table = Table(["position", "value", "nodes", "CPU s", "M nodes/CPU s"], title=_title("Kalah"))
    all_nodes, all_seconds = 0, 0.0
    for label, state, all_moves in cases:
        _say(f"solve: {label} ...")
        solver.forget()
        began = time.process_time()
        result = solver.solve(state, all_moves=all_moves)
        took = time.process_time() - began
        all_nodes += result["nodes"]
        all_seconds += took
        rate = result["nodes"] / max(took, 1e-9) / 1e6
        table.add(
            label, f"{result['value']:+d}", f"{result['nodes']:,}", f"{took:.2f}", f"{rate:.2f}"
        )
    rate = all_nodes / max(all_seconds, 1e-9) / 1e6
    table.add("total", "", f"{all_nodes:,}", f"{all_seconds:.2f}", f"{rate:.2f}")
    return table


def tak_perft_rates(size: int) -> Table:
    """The perft table of `--tak`: moves counted a second by each engine."""
    from mancala.games.tak.perft import bench as perft_bench

    rates = perft_bench(size)
    table = Table(["what", "measured"], title=_title(f"Tak {size}x{size} perft"))
    fast = rates["fast"]
    table.add("readable rules, perft 3", f"{rates['readable']:,.0f} moves/s")
    table.add("numba engine, perft 4", f"{fast:,.0f} moves/s, {fast / rates['readable']:.0f}x")
    table.add("numba engine, random games", f"{rates['fast playouts']:,.0f} plies/s")
    return table


def tak_search_rates(size: int, plies: tuple[int, ...] = (10, 40, 80), seed: int = 3) -> Table:
    """The table of `--tak` (see the module text), after compiling."""
    from mancala.ai.search_generic import AlphaBeta
    from mancala.games.tak import new_tak
    from mancala.games.tak.search import Search, move_values, new_table

    rng = random.Random(seed)
    Search(1 << 16)  # compile
    headers = ["position", "legal moves", "depth 1", "depth 2", "depth 3", "depth 4"]
    headers += ["generic, depth 3", "depth in 0.1 s"]
    table = Table(headers, title=_title(f"Tak {size}x{size}"))
    rate = "{:.4f} s, {:,} nodes, {:,.0f} nodes/s".format
    for count in plies:
        state = opening_going_on(new_tak(size), count, rng)
        if state is None:
            continue  # a small board's games end before this many plies
        cells = [f"{count} plies", str(len(state.legal_moves()))]
        for depth in (1, 2, 3, 4):
            start = time.perf_counter()
            nodes = move_values(state, depth=depth, table=new_table(18))[2]
            seconds = time.perf_counter() - start
            cells.append(rate(seconds, nodes, nodes / seconds))
        generic = AlphaBeta(depth=3)
        start = time.perf_counter()
        generic.choose_move(state)
        seconds = time.perf_counter() - start
        cells.append(rate(seconds, generic.nodes, generic.nodes / seconds))
        cells.append(str(move_values(state, seconds=0.1, table=new_table(18))[1]))
        table.add(*cells)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala bench", __doc__)
    parser.add_argument("--games", type=int_in(1), default=10_000, help="random games per engine")
    parser.add_argument("--timed-games", type=int_in(1), default=1, help="games timed per player")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--verify",
        nargs="?",
        const=1_000_000,
        type=int_in(1),
        metavar="MOVES",
        help="compare engine and rules over MOVES random moves (default a million)",
    )
    parser.add_argument(
        "--teacher",
        nargs="?",
        const=160,
        type=int_in(1, 160),
        metavar="GAMES",
        help="annotation rates of the learning loop's teacher over GAMES recorded games (160)",
    )
    parser.add_argument(
        "--tak",
        type=int_in(3, 8),
        metavar="SIZE",
        help="Tak on a SIZE board: perft by both engines, then the numba alpha-beta",
    )
    parser.add_argument(
        "--solve",
        nargs="?",
        const="mid",
        choices=("mid", "all"),
        help="the Kalah solver on fixed positions (all: also Kalah(6,4) from the opening)",
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    return run_command("mancala bench", lambda: _run(args), "nothing is written")


def _run(args: argparse.Namespace) -> int:
    if args.verify is not None:
        return 1 if verify(args.verify, args.seed) else 0
    if args.solve is not None:
        tables = [solve_rates(args.solve == "all")]
    elif args.tak is not None:
        tables = [tak_perft_rates(args.tak), tak_search_rates(args.tak)]
    elif args.teacher is not None:
        tables = [teacher_rates(args.teacher)]
    else:
        tables = [bench(args.games, args.timed_games, args.seed)]
    show(tables, args.json)
    return 0


def _title(game: str) -> str:
    return f"{game}, one process, {time.strftime('%Y-%m-%d %H:%M')}"


if __name__ == "__main__":
    sys.exit(main())
