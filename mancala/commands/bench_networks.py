"""How long a zoo network takes to choose a move: one position, and batches (numpy),
against Keras `predict_on_batch` of one position on the same network in the same run (the
ratio column: how many times slower Keras is; sowing games only, a Tak move valuing
every position after it).

    mancala bench networks            # every zoo network with weights (Kalah)
    mancala bench networks nn1h128 --repeat 5000
    mancala bench networks --variant tak --size 6 --repeat 200
"""

from __future__ import annotations

import random
import sys
import time

from mancala.arena.openings import random_opening
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.report import Table, show


def per_call(function, argument, repeat: int) -> float:
    """Seconds a call of `function(argument)`, the best of 3 runs of `repeat` calls."""
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        for _ in range(repeat):
            function(argument)
        best = min(best, (time.perf_counter() - began) / repeat)
    return best


def main(argv: list[str] | None = None) -> int:
    from mancala.ai.network import NetworkPlayer
    from mancala.games import GAMES, new_game
    from mancala.games.options import add_game_options, game_options
    from mancala.games.sowing.view import mover_views
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
    rng = random.Random(0)
    states = [random_opening(start, rng.randint(0, 20), rng)[0] for _ in range(400)]
    states = [s for s in states if not s.is_over()][:256]
    sown = not GAMES[start.game].planes
    table = Table(["network", "one move (µs)", "a move in a batch of 256 (µs)"])
    if sown:
        table.headers += ["Keras, one (µs)", "ratio"]
    for name in names:
        player = NetworkPlayer(network=name)
        one = per_call(player.choose_move, states[0], args.repeat)
        batch = per_call(player.choose_moves, states, max(1, args.repeat // 100))
        row = [name, round(1e6 * one), round(1e6 * batch / len(states), 1)]
        if sown:
            x = player.net.encode(mover_views(states[:1]))
            keras_one = per_call(player.net.model.predict_on_batch, x, max(1, args.repeat // 20))
            row += [round(1e6 * keras_one), f"{keras_one / one:.0f}x"]
        table.add(*row)
    show([table], args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
