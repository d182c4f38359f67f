"""Perfect play for Kalah: the exact search, its endgame database and its opening book.

One job a module: `ranking` numbers relative boards, `rules` plays them, `database` builds
and caches the endgame database, `table` is the transposition table, `search` the numba
search, `solver` the `Solver` that drives it, `book` the opening book, `campaign` the
long resumable solve of every move, `options` the offline commands' size options.
"""

from mancala.games.sowing.solver.database import (
    cache_path,
    database,
    default_cache_dir,
    default_max_seeds,
    header_matches,
)
from mancala.games.sowing.solver.rules import relative_board, store_lead
from mancala.games.sowing.solver.search import scratch_bytes
from mancala.games.sowing.solver.solver import OutOfBudget, Solver, check_solvable
from mancala.games.sowing.solver.table import TT_BITS

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
