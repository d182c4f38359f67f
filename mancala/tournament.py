"""`python mancala/tournament.py ...` runs `mancala tournament ...`, as the first pages taught."""

import sys

from mancala.commands.tournament import main

if __name__ == "__main__":
    sys.exit(main())
