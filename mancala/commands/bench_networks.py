"""How long a zoo network takes to choose a move: one position, and batches (numpy),
against Keras `predict_on_batch` of one position on the same network in the same run (the
ratio column: how many times slower Keras is; sowing games only, a Tak move valuing
every position after it).

    mancala bench networks            # every zoo network with weights (Kalah)
    mancala bench networks nn1h128 --repeat 5000
    mancala bench networks --variant tak --size 6 --repeat 200
"""

from __future__ import annotations

import sys

from mancala.arena.bench import network_table
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.report import show


def main(argv: list[str] | None = None) -> int:
    from mancala.commands.options import add_game_options, game_options
    from mancala.games import new_game
    from mancala.nn_lib.base import ZOO_GAMES
    from mancala.nn_lib.zoo import ZOO, trained_games

    parser = command_parser("mancala bench networks", __doc__)
    parser.add_argument("names", nargs="*", help="networks (default: all with weights)")
    parser.add_argument("--repeat", type=int_in(1), default=2000)
    add_game_options(parser, list(ZOO_GAMES))
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in ZOO]
    if unknown:
        zoo = ", ".join(ZOO)
        return fail("mancala bench networks", f"{unknown[0]!r} is not a network of the zoo ({zoo})")
    try:
        start = new_game(args.variant, **game_options(args))
    except ValueError as error:
        return fail("mancala bench networks", str(error))
    board = {"variant": start.game, **start.options}
    names = args.names or [name for name in ZOO if board in trained_games(name)]
    show([network_table(start, names, args.repeat)], args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
