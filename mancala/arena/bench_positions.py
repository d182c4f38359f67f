"""Speed on fixed positions: the Kalah solver (`mancala bench --solve`), Tak's perft and
alpha-beta (`mancala bench --tak SIZE`); as the other tables of `mancala bench`
(`mancala.arena.bench`), every number comes from this one run.

`--tak SIZE` first times perft from the opening of a SIZE board (`tak_perft_rates`:
`mancala.games.tak.perft.bench`, the readable rules to depth 3, the numba engine to
depth 4, and the numba engine's random games in plies a second), then Tak's alpha-beta
on the numba engine (`mancala.games.tak.search`) on positions after 10, 40 and 80 random
plies (`tak_search_rates`): each depth from 1 to 4 with a new table,
the generic alpha-beta (`mancala.ai.search_generic`) to depth 3 on the same positions
(the same algorithm: the same nodes), and the depth reached in 0.1 s.

`solve_rates` (`--solve`) times the exact solver (`mancala.games.sowing.solver.Solver`,
standard capture, the endgame database of 20 seeds: built on first use) on fixed
positions, each with a new transposition table and no opening book, from MTD(f)'s default
first guess: Kalah(6,3) from the opening with every move's value, then five Kalah(6,4)
positions 4 to 10 plies into random games; `--solve all` adds Kalah(6,4) from the opening
(half a minute or more).
"""

from __future__ import annotations

import random
import time

from mancala.arena.bench import say, timed, title
from mancala.arena.openings import opening_going_on
from mancala.core.report import Table
from mancala.game_state import KALAH, GameState

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
    table = Table(["position", "value", "nodes", "CPU s", "M nodes/CPU s"], title=title("Kalah"))
    all_nodes, all_seconds = 0, 0.0
    for label, state, all_moves in cases:
        say(f"solve: {label} ...")
        solver.forget()
        result, took = timed(solver.solve, state, all_moves=all_moves)
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
    table = Table(["what", "measured"], title=title(f"Tak {size}x{size} perft"))
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
    table = Table(headers, title=title(f"Tak {size}x{size}"))
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
