"""How a Tak player loses to another: it plays the other from random 2-ply 5x5 openings,
each in both seats (those of `mancala tournament N A B --variant tak --plies 2`), and
sorts the games it lost by its last move:

- "let a road in one through, another move would not have": after its last move the
  other could finish a road, and some legal move of its own left no such road;
- "let a road in one through, every move would have": no move of its own stopped it (a
  double threat, or a road it could not block);
- "to a road later": the other's road came after a move of its own that let no road in
  one through (or its own move finished it);
- "on flats": the game was lost on the flats on top when the board filled or a player's
  pieces ran out.

Of the first kind, "marked" counts the games in which the feature planes of the position
after its last move (`mancala.games.tak.features`, the other player's moves that finish a
road) marked where the other's winning move started. Of the second kind, "seen a move
earlier" counts the games in which, at the player's move before its last, minimax:3
valued the move played as lost to a road and some other move as not: the loss was made
there, within three plies.

    python experiments/tak_losses.py cnn2x64h128 --openings 100
    python experiments/tak_losses.py cnn2x64h128 --weights old/cnn2x64h128.keras
"""

from __future__ import annotations

import sys
from collections import Counter
from functools import reduce
from typing import Any

from mancala.core.cli import command_parser, int_in
from mancala.core.report import Table, show

THROUGH_AVOIDABLE = "let a road in one through, another move would not have"
THROUGH_FORCED = "let a road in one through, every move would have"
LATER = "lost to a road later"
ON_FLATS = "lost on flats"


def wins_now(state: Any) -> bool:
    """Whether the player to move has a move that wins at once."""
    for move in state.legal_moves():
        after = state.play(move)
        if after.is_over() and after.winner() == state.player:
            return True
    return False


def safe(state: Any, move: int) -> bool:
    """Whether `move` wins at once or leaves the other player no move that does."""
    after = state.play(move)
    return after.winner() == state.player if after.is_over() else not wins_now(after)


def seen_earlier(state: Any, played: int, teacher: Any) -> bool:
    """Whether `teacher` values `played` in `state` as lost and some other move as not."""
    from mancala.games.tak.evaluate import FORCED

    values = dict(zip(state.legal_moves(), teacher.move_values(state)))
    return values[played] <= -FORCED < max(values.values())


def how_lost(record: dict[str, Any], seat: int, start: Any, teacher: Any) -> tuple[str, bool]:
    """(the kind of loss of `seat` in `record`; of the first kind, whether the feature
    planes marked the other's winning move after its last move; of the second, whether
    `teacher` saw at its move before that the move played lost where another did not)."""
    import numpy as np

    from mancala.arena.records import replay
    from mancala.games.tak.actions import decode
    from mancala.games.tak.features import feature_planes
    from mancala.games.tak.planes import planes

    states = replay(record)
    if states[-1].outcome.reason != "road":
        return ON_FLATS, False
    mine = [i for i, s in enumerate(states[:-1]) if s.player == seat and i >= record["opening"]]
    if not mine or mine[-1] != len(states) - 3 or not wins_now(states[mine[-1] + 1]):
        return LATER, False
    before, after = states[mine[-1]], states[mine[-1] + 1]
    if not any(safe(before, move) for move in before.legal_moves()):
        return THROUGH_FORCED, mine[-1] - 2 >= record["opening"] and seen_earlier(
            states[mine[-1] - 2], record["moves"][mine[-1] - 2], teacher
        )
    marked = feature_planes(planes(after, seat)[None])[0, 9]
    square = decode(start.size, record["moves"][-1]).square
    return THROUGH_AVOIDABLE, bool(np.ravel(marked)[square])


def main(argv: list[str] | None = None) -> int:
    from mancala.ai.registry import make_player
    from mancala.arena.match import play_games, ply_limit
    from mancala.arena.openings import draw_openings
    from mancala.games import new_game
    from mancala.learn.teacher import Teacher

    parser = command_parser("tak_losses", __doc__)
    parser.add_argument("player", help="the player whose losses are sorted (cnn2x64h128)")
    parser.add_argument("--weights", help="a network's weights file (its shipped ones)")
    parser.add_argument("--against", default="greedy", help="its opponent (greedy)")
    parser.add_argument("--openings", type=int_in(1), default=100, help="x2 seats")
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    start = new_game("tak", size=5, komi=0)
    openings = draw_openings(start, args.openings, 2, 0)
    starts = [reduce(lambda state, move: state.play(move), moves, start) for moves in openings]
    weights = {"path": args.weights} if args.weights else {}
    player = make_player(args.player, seed=1, **weights)
    other = make_player(args.against, seed=1)
    teacher = Teacher(3, game="tak", chain=False)
    kinds: Counter[str] = Counter()
    flagged: Counter[str] = Counter()  # of each kind, the games its flag was set
    points = 0.0
    for seat in (0, 1):
        seated = [player, other] if seat == 0 else [other, player]
        for record in play_games(seated, starts, openings=openings, max_plies=ply_limit(start)):
            winner = record["winner"]
            points += 1.0 if winner == seat else 0.5 if winner is None else 0.0
            if winner is None or winner == seat:
                kinds["won" if winner == seat else "drawn"] += 1
                continue
            kind, flag = how_lost(record, seat, start, teacher)
            kinds[kind] += 1
            flagged[kind] += flag
    games = 2 * args.openings
    table = Table(["games of " + args.player, "count", "%"])
    table.title = f"{args.player} against {args.against}: {100 * points / games:.1f}% of the points"
    for kind in ("won", "drawn", THROUGH_AVOIDABLE, THROUGH_FORCED, LATER, ON_FLATS):
        table.add(kind, kinds[kind], round(100 * kinds[kind] / games, 1))
    table.add("  of the first kind, marked by the feature planes", flagged[THROUGH_AVOIDABLE], "")
    table.add("  of the second kind, seen a move earlier by minimax:3", flagged[THROUGH_FORCED], "")
    show([table], args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
