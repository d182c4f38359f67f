"""Build the solver's endgame database into a cache folder (or find it there already).

    mancala solve database                          # Kalah(6), 20 seeds: minutes
    mancala solve database --max-seeds 24 --empty-capture

The same as `python -m mancala.games.sowing.solver` (which the API image's build runs from
a copy of the games' files alone), under the lab's command line.
"""

import sys

from mancala.games.sowing.solver.__main__ import main as build


def main(argv: list[str] | None = None) -> int:
    return build(argv, prog="mancala solve database")


if __name__ == "__main__":
    sys.exit(main())
