"""Results of finished games: the one tally of wins, draws and losses of the lab.

A game's result for a player follows from the record's `winner` (0, 1, or None for a
draw) and the seat the player sat in (0 moved first).

>>> tally = Tally()
>>> for winner, seat in [(0, 0), (1, 0), (None, 1), (1, 1)]:
...     tally.add(winner, seat)
>>> tally, tally.games, tally.win_percent()
(Tally(wins=2, draws=1, losses=1), 4, 50.0)
>>> tally.to_dict()
{'wins': 2, 'draws': 1, 'losses': 1, 'games': 4}
>>> Tally.from_dict(tally.to_dict()) == tally, tally + Tally(wins=1), points(1, 1)
(True, Tally(wins=3, draws=1, losses=1), 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

OUTCOMES = ("wins", "draws", "losses")


def outcome(winner: int | None, seat: int) -> str:
    """'wins', 'draws' or 'losses': the result of a finished game for the player in `seat`."""
    if winner is None:
        return "draws"
    return "wins" if winner == seat else "losses"


def points(winner: int | None, seat: int) -> float:
    """The player in `seat`'s points of a finished game: 1 a win, 1/2 a draw, 0 a loss."""
    return {"wins": 1.0, "draws": 0.5, "losses": 0.0}[outcome(winner, seat)]


@dataclass
class Tally:
    """Wins, draws and losses of one player (over any number of games)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def add(self, winner: int | None, seat: int) -> None:
        """Count a finished game with `winner`, played in `seat`."""
        kind = outcome(winner, seat)
        setattr(self, kind, getattr(self, kind) + 1)

    def add_records(self, records: Iterable[dict[str, Any]], seat: int) -> Tally:
        """Count every record of games played in `seat`; this tally."""
        for record in records:
            self.add(record["winner"], seat)
        return self

    def percent(self, kind: str) -> float:
        """The share of `kind` ('wins', 'draws' or 'losses') in the games, in %."""
        return 100.0 * getattr(self, kind) / self.games if self.games else 0.0

    def win_percent(self) -> float:
        """The share of games won, in % (draws are not wins)."""
        return self.percent("wins")

    def to_dict(self) -> dict[str, int]:
        """JSON-safe: {"wins", "draws", "losses", "games"}."""
        return {"wins": self.wins, "draws": self.draws, "losses": self.losses, "games": self.games}

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tally:
        """The tally `to_dict` wrote (its "games" is implied)."""
        return cls(*(int(data[kind]) for kind in OUTCOMES))
