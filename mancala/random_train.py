"""`python mancala/random_train.py ...` runs `mancala train ...`, as the first pages taught."""

import sys

from mancala.commands.train import main

if __name__ == "__main__":
    sys.exit(main())
