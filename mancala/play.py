"""`python mancala/play.py ...` runs `mancala play ...`, as the first pages taught."""

import sys

from mancala.commands.play import main

if __name__ == "__main__":
    sys.exit(main())
