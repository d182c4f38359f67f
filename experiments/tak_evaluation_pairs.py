"""Two weightings of Tak's alpha-beta evaluation in game pairs at equal time (docs/tak.md,
"A learned evaluation").

    python experiments/tak_evaluation_pairs.py runs/fit/tak/evaluation-5.json hand \
        --seconds 0.1 --first-opening 0 --last-opening 100

Each side is minimax with its weights (a file `mancala fit evaluation` wrote, or "hand"
for the hand-set ones, or "fitted" for the shipped ones), the same time a move, from the
openings first..last of the 5x5 set `tak-a`, each opening once in each seat. Prints the
first side's score with its standard error and the pentanomial counts, as JSON.
"""

from __future__ import annotations

import argparse
import json

from mancala.ai.minimax import Minimax
from mancala.arena.opening_sets import load_set, set_starts
from mancala.arena.pairs import play_pairs
from mancala.games.tak.evaluate import EVALUATIONS, read_weights
from mancala.games.tak.state import TakState


def evaluation(text: str):
    """A name of EVALUATIONS as it is, else the weights of the file `text`."""
    return text if text in EVALUATIONS else read_weights(text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("first", help="a weights file, hand or fitted")
    parser.add_argument("second", help="a weights file, hand or fitted")
    parser.add_argument("--seconds", type=float, default=0.1, help="each side's time a move")
    parser.add_argument("--first-opening", type=int, default=0)
    parser.add_argument("--last-opening", type=int, default=200, help="one past the last")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    starts, openings = set_starts(load_set(TakState.game, "a"))
    chosen = slice(args.first_opening, args.last_opening)
    sides = [
        Minimax(seat + 1, seconds=args.seconds, evaluation=evaluation(text))
        for seat, text in enumerate((args.first, args.second))
    ]
    pairs = play_pairs(*sides, starts[chosen], openings[chosen], seed=args.seed)
    print(json.dumps(pairs.to_dict()))


if __name__ == "__main__":
    main()
