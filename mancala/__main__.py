"""`python -m mancala VERB ...`: the lab's command line (mancala/commands/)."""

import sys

from mancala.commands import main

if __name__ == "__main__":
    sys.exit(main())
