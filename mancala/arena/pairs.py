"""Game pairs: the one head-to-head runner of the lab. Each opening is played twice, the
seats swapped, and a pair is scored as engine testing scores it: the player's points of
its two games summed (0, 0.5, 1, 1.5 or 2: the pentanomial counts), so that an opening
that one seat always wins counts as even. The standard error of the score is taken over
distinct openings (the pairs of an opening drawn twice are one sample), and the mean
final margin (seeds, where the game keeps scores) and the per-seat results are beside.

>>> pairs = Pairs([(1,), (2,), (1,)], [[1, 0], [1, 1], [0.5, 0.5]], [[4, -2], [6, 2], [0, 0]])
>>> pairs.pentanomial(), pairs.score(), round(pairs.standard_error(), 3), pairs.margin()
([0, 0, 2, 0, 1], 0.6667, 0.25, 1.6667)
>>> pairs.seats()
[Tally(wins=2, draws=1, losses=0), Tally(wins=1, draws=1, losses=1)]
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mancala.ai.base import Player
from mancala.arena.match import play_games, ply_limit
from mancala.arena.results import Tally, points

PENTANOMIAL = (0.0, 0.5, 1.0, 1.5, 2.0)  # a pair's points


@dataclass
class Pairs:
    """The pairs a player played: per opening (its moves), its points and margins in the
    game where it moved first and in the one where it moved second."""

    openings: list[tuple[int, ...]]
    points: list[list[float]]  # [first seat, second seat] per opening
    margins: list[list[float | None]]  # the player's final margin in each, or None

    def games(self) -> list[float]:
        """The player's points, every first-seat game, then every second-seat game (the
        order the gate pairs candidate and incumbent by)."""
        return [p[0] for p in self.points] + [p[1] for p in self.points]

    def pentanomial(self) -> list[int]:
        """How many pairs scored 0, 0.5, 1, 1.5 and 2 points."""
        counts = [0] * len(PENTANOMIAL)
        for first, second in self.points:
            counts[PENTANOMIAL.index(first + second)] += 1
        return counts

    def score(self) -> float:
        """The player's mean points a game, 0..1."""
        games = self.games()
        return round(sum(games) / len(games), 4)

    def standard_error(self) -> float:
        """The standard error of `score`, the pairs of one opening taken as one sample."""
        by_opening: dict[tuple[int, ...], list[float]] = defaultdict(list)
        for opening, (first, second) in zip(self.openings, self.points, strict=True):
            by_opening[opening].append((first + second) / 2)
        means = [sum(v) / len(v) for v in by_opening.values()]
        if len(means) < 2:
            return math.inf
        mean = sum(means) / len(means)
        variance = sum((m - mean) ** 2 for m in means) / (len(means) - 1)
        return math.sqrt(variance / len(means))

    def margin(self) -> float | None:
        """The player's mean final margin a game, where the game keeps scores."""
        known = [m for pair in self.margins for m in pair if m is not None]
        return round(sum(known) / len(known), 4) if known else None

    def seats(self) -> list[Tally]:
        """The player's wins, draws and losses moving first, and moving second."""
        tallies = [Tally(), Tally()]
        for pair in self.points:
            for seat, got in enumerate(pair):
                tallies[seat].add(None if got == 0.5 else (seat if got == 1 else 1 - seat), seat)
        return tallies

    def to_dict(self) -> dict[str, Any]:
        """The figures of a report (JSON-safe)."""
        first, second = self.seats()
        return {
            "pairs": len(self.points),
            "openings": len(set(self.openings)),
            "score": self.score(),
            "standard_error": round(self.standard_error(), 4),
            "pentanomial": self.pentanomial(),
            "margin": self.margin(),
            "first": first.to_dict(),
            "second": second.to_dict(),
        }


def play_pairs(
    player: Player,
    opponent: Player,
    starts: Sequence[Any],
    openings: Sequence[list[int]],
    seed: int | None = None,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    on_move: Callable[[int, Any, int], None] | None = None,
) -> Pairs:
    """`player` against `opponent` from each of `starts` (reached by the moves `openings`)
    once in each seat; a game past the game's ply limit (`ply_limit`) is a draw.
    `on_game(record)` is told every game's end, `on_move(game, state, move)` every move
    (the games of a seat go on side by side, so most end near the end)."""
    most = ply_limit(starts[0])
    runs = [
        play_games(
            seated,
            starts,
            openings=openings,
            seed=seed,
            max_plies=most,
            on_game=on_game,
            on_move=on_move,
        )
        for seated in ([player, opponent], [opponent, player])
    ]
    return Pairs(
        [tuple(moves) for moves in openings],
        [[points(a["winner"], 0), points(b["winner"], 1)] for a, b in zip(*runs, strict=True)],
        [[record_margin(a, 0), record_margin(b, 1)] for a, b in zip(*runs, strict=True)],
    )


def record_margin(record: dict[str, Any], seat: int) -> float | None:
    """The final margin of a recorded game for the player in `seat`, where it has scores."""
    scores = record.get("scores")
    return None if scores is None else scores[seat] - scores[1 - seat]
