"""Make a fixed set of distinct, contested openings of a game (mancala/arena/opening_sets.py).

    mancala openings kalah              # mancala/data/openings/kalah-a.json
    mancala openings tak --count 50 --seed 2 --name b

The set is drawn from its seed by the game's recipe, judged by a fixed minimax, and
written atomically with this command in its first key; it takes a minute or two a game.
"""

from __future__ import annotations

import shlex
import sys

from tqdm import tqdm

from mancala.arena.opening_sets import make_set, save_set
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.stopping import run_command
from mancala.games import game_names

MAX_OPENINGS = 5000


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala openings", __doc__)
    parser.add_argument("game", choices=sorted(game_names()), help="the game")
    parser.add_argument("--count", type=int_in(1, MAX_OPENINGS), default=200, help="openings (200)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (1)")
    parser.add_argument("--name", default="a", help="the set's name: GAME-NAME.json (a)")
    args = parser.parse_args(argv)
    if not args.name.isalnum():
        return fail("mancala openings", f"a set's name is letters and digits, not {args.name!r}")
    argv = sys.argv[1:] if argv is None else argv
    command = shlex.join(["mancala", "openings", *argv])
    return run_command("mancala openings", lambda: _make(args, command), "nothing was written")


def _make(args, command: str) -> int:
    bar = tqdm(total=args.count, desc=f"{args.game} openings", unit="opening", file=sys.stderr)

    def tick(kept: int, tried: int) -> None:
        bar.set_postfix(tried=tried, refresh=False)
        bar.update(kept - bar.n)

    try:
        made = make_set(args.game, args.count, args.seed, tick)
    finally:
        bar.close()
    path = save_set(made, args.name, command)
    print(f"{len(made['openings'])} openings of {made['tried']} tried, judged by {made['judge']}")
    print(f"within {made['within']:g} of even: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
