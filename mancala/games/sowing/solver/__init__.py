"""Perfect play for Kalah: the exact search, its endgame database and its opening book."""

from mancala.games.sowing.solver.search import (
    TT_BITS,
    OutOfBudget,
    Solver,
    cache_path,
    check_solvable,
    database,
    default_cache_dir,
    default_max_seeds,
    header_matches,
    relative_board,
    scratch_bytes,
    store_lead,
)

__all__ = [
    "TT_BITS",
    "OutOfBudget",
    "Solver",
    "cache_path",
    "check_solvable",
    "database",
    "default_cache_dir",
    "default_max_seeds",
    "header_matches",
    "relative_board",
    "scratch_bytes",
    "store_lead",
]
