"""Perft for Tak: the number of move sequences of each length from a position, counted by
the readable rules (`state.py`) and by the numba engine (`fast.py`), with the published
counts they must equal and a speed benchmark of both.

A game that ends stops there: it adds one to the count of the ply that ended it and
nothing to deeper counts (as tiltak counts).

    python -m mancala.games.tak.perft                     # 5x5 opening, depths 1..4
    python -m mancala.games.tak.perft --size 6 --depth 5
    python -m mancala.games.tak.perft --tps "x5/x5/x5/x5/x5 1 1" --depth 3 --engine both

>>> from mancala.games.tak.state import new_tak
>>> [perft(new_tak(5), depth) for depth in range(3)]
[1, 25, 600]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from mancala.core.cli import command_parser, fail, int_in
from mancala.games.tak import fast
from mancala.games.tak.state import TakState, from_tps, new_tak

# Published counts, depth 0 first. The openings and the mid-game positions are those of
# tiltak's move generation tests (github.com/MortenLohne/tiltak, src/tests/
# move_gen_5s_tests.rs and move_gen_6s_tests.rs); the 5x5 positions there are reached by
# PTN moves, written here as the TPS they reach.
OPENINGS = {
    5: [1, 25, 600, 43_320, 2_999_784],
    6: [1, 36, 1_260, 132_720, 13_586_048],  # depth 5: 1,253,506,520 (in a comment there)
}
POSITIONS = {
    # perf_test2: d3 c3 c4 1d3< 1c4- Sc4
    "x5/x2,2S,x2/x2,121,x2/x5/x5 1 4": [1, 87, 6_155, 461_800],
    # perf_test3: c2 c3 d3 b3 c4 1c2+ 1d3< 1b3> 1c4- Cc2 a1 1c2+ a2
    "x5/x5/x2,121212C,x2/1,x4/1,x4 2 7": [1, 104, 7_743, 592_645],
    # suicide_perf_test: 41 plies where some moves make the opponent's road
    "x2,2,x,2/x,12,x,12,x/212,x2,2121C,x/x,1,112221,1,1/x5 2 21": [1, 85, 11_204, 956_736],
    # endgame_perf_test (6x6, from game #636814 on playtak)
    (
        "2,2,21S,2,2,2/2,x,222221,2,2,x/1,1,2221C,x,111112C,2S/x,1,2S,x2,121211212/"
        "1,1,1212S,1S,2,1S/x2,2,1,21,1 1 42"
    ): [1, 140, 21_402, 2_774_593],
}


def perft(state: TakState, depth: int) -> int:
    """Move sequences of `depth` plies from `state`, by the readable rules."""
    if depth == 0:
        return 1
    moves = state.legal_moves()  # none when the game is over
    if depth == 1:
        return len(moves)
    return sum(perft(state.play(move), depth - 1) for move in moves)


def timed(count: Callable[[TakState, int], int], state: TakState, depth: int) -> tuple[int, float]:
    """(the count, moves counted per second) of `count(state, depth)`."""
    start = time.perf_counter()
    total = count(state, depth)
    return total, total / max(time.perf_counter() - start, 1e-9)


def bench(size: int = 5, depth: int = 4, readable_depth: int = 3) -> dict[str, float]:
    """Perft moves per second from the opening of `size`: the readable rules to
    `readable_depth`, the fast engine to `depth` (compiled first), and the fast engine's
    random playouts in plies per second."""
    fast.perft(new_tak(size), 2)  # compile outside the timing
    _, readable = timed(perft, new_tak(size), readable_depth)
    _, compiled = timed(fast.perft, new_tak(size), depth)
    return {"readable": readable, "fast": compiled, "fast playouts": playout_rate(size)}


def playout_rate(size: int, games: int = 200) -> float:
    """Plies per second of random games played by the fast engine."""
    meta, colours = fast.to_arrays(new_tak(size))
    fast.random_game(meta.copy(), colours.copy(), 10, 0)  # compile outside the timing
    start, plies = time.perf_counter(), 0
    for seed in range(games):
        _, played = fast.random_game(meta.copy(), colours.copy(), 10_000, seed)
        plies += len(played)
    return plies / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    """Print the perft count of each depth 1..--depth, its moves per second and the
    published count where one is known."""
    parser = command_parser("perft", __doc__)
    parser.add_argument("--size", type=int_in(3, 8), default=5, help="board size (default 5)")
    parser.add_argument("--depth", type=int_in(1, 8), default=4, help="deepest ply (default 4)")
    parser.add_argument("--tps", help="count from this position instead of the opening")
    parser.add_argument("--komi", type=int_in(-128, 128), default=0, help="half points")
    parser.add_argument("--engine", choices=("fast", "readable", "both"), default="fast")
    args = parser.parse_args(argv)
    try:
        state = from_tps(args.tps, args.komi) if args.tps else new_tak(args.size, args.komi)
    except ValueError as error:
        return fail("perft", str(error))
    engines = {"fast": fast.perft, "readable": perft}
    if args.engine != "both":
        engines = {args.engine: engines[args.engine]}
    if "fast" in engines:
        fast.perft(state, min(args.depth, 2))  # compile outside the timing
    published = POSITIONS.get(state.to_tps()) or (
        OPENINGS.get(state.size) if not args.tps else None
    )
    print(f"{state.size}x{state.size}: {state.to_tps()}")
    for depth in range(1, args.depth + 1):
        line = [f"depth {depth}"]
        for name, count in engines.items():
            total, rate = timed(count, state, depth)
            line.append(f"{name} {total:,} ({rate:,.0f} moves/s)")
        if published and depth < len(published):
            line.append(f"published {published[depth]:,}")
        print("  ".join(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
