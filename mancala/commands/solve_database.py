"""Build the solver's endgame database into a cache folder (or find it there already).

    mancala solve database                          # Kalah(6), 20 seeds: minutes
    mancala solve database --max-seeds 24 --empty-capture

A build starts from the largest database of the same rules and fewer seeds in the cache
(its levels are the first of the larger one's); Ctrl+C or SIGTERM ends it after the
chunks under way and keeps the levels it finished as such a database, so the same
command goes on from there.

The same as `python -m mancala.games.sowing.solver` (which the API image's build runs from
a copy of the games' files alone), under the lab's command line.
"""

import sys

from mancala.core.stopping import run_command
from mancala.games.sowing.solver.__main__ import main as build


def main(argv: list[str] | None = None) -> int:
    prog = "mancala solve database"
    return run_command(prog, lambda: build(argv, prog=prog), "the same command goes on")


if __name__ == "__main__":
    sys.exit(main())
