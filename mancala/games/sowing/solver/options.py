"""The solver's size options of the offline commands (`solve`, `solved_set`): the endgame
database (seeds left) and the transposition table (log2 entries).

Without --max-seeds a command uses the largest database of its rules already cached
(`mancala solve database --max-seeds 24` builds a bigger one once), never
less than the default, so a bigger database speeds every later solve without a flag.
The players do the same (`mancala.ai.solver`).
"""

from __future__ import annotations

import argparse

from mancala.core.cli import int_in
from mancala.game_state import GameState
from mancala.games.sowing.solver.database import (
    MAX_DB_SEEDS,
    cache_path,
    database_seeds,
    default_cache_dir,
    header_matches,
)
from mancala.games.sowing.solver.solver import Solver
from mancala.games.sowing.solver.table import TT_BITS

MAX_TT_BITS = 30  # 2**30 table entries take 16 GiB


def add_solver_options(parser: argparse.ArgumentParser) -> None:
    """--max-seeds and --tt-bits, checked on the way in."""
    parser.add_argument(
        "--max-seeds",
        type=int_in(0, MAX_DB_SEEDS),
        help=f"endgame database size (seeds left, 0..{MAX_DB_SEEDS}; "
        "default: the largest cached, at least the players' size)",
    )
    parser.add_argument(
        "--tt-bits",
        type=int_in(10, MAX_TT_BITS),
        default=TT_BITS + 1,
        help=f"log2 table entries (10..{MAX_TT_BITS}; {TT_BITS + 1}; 16 bytes each)",
    )


def database_cached(state: GameState, args: argparse.Namespace) -> bool:
    """Whether the endgame database `solver_for` reads is in the cache already."""
    n = database_seeds(state, args.max_seeds)
    path = cache_path(default_cache_dir(), state.houses, n, state.empty_capture)
    return header_matches(path, state.houses, n, state.empty_capture)


def solver_for(state: GameState, args: argparse.Namespace) -> Solver:
    """The solver of `state`'s rules sized by the command's options."""
    n = database_seeds(state, args.max_seeds)
    return Solver(state.houses, state.empty_capture, n, tt_bits=args.tt_bits)
