"""The solver's sizes for the offline commands (`solve`, `solved_set`): the endgame
database (seeds left) and the transposition table (log2 entries); the commands take them
as --max-seeds and --tt-bits (`mancala.commands.options`).

Without a size of database (`max_seeds` None) a command uses the largest database of its
rules already cached (`mancala solve database --max-seeds 24` builds a bigger one once),
never less than the default, so a bigger database speeds every later solve without a flag.
The players do the same (`mancala.ai.solver`).
"""

from __future__ import annotations

from mancala.game_state import GameState
from mancala.games.sowing.solver.database import (
    cache_path,
    database_seeds,
    default_cache_dir,
    header_matches,
)
from mancala.games.sowing.solver.solver import Solver
from mancala.games.sowing.solver.table import TT_BITS

MAX_TT_BITS = 30  # 2**30 table entries take 16 GiB
COMMAND_TT_BITS = TT_BITS + 1  # the offline commands' table: twice the solver's default


def database_cached(state: GameState, *, max_seeds: int | None = None) -> bool:
    """Whether the endgame database `solver_for` reads is in the cache already."""
    n = database_seeds(state, max_seeds)
    path = cache_path(default_cache_dir(), state.houses, n, state.empty_capture)
    return header_matches(path, state.houses, n, state.empty_capture)


def solver_for(
    state: GameState, *, max_seeds: int | None = None, tt_bits: int = COMMAND_TT_BITS
) -> Solver:
    """The solver of `state`'s rules with a database of `max_seeds` (None: the largest
    cached, at least the players') and a table of 2**tt_bits entries."""
    n = database_seeds(state, max_seeds)
    return Solver(state.houses, state.empty_capture, n, tt_bits=tt_bits)
