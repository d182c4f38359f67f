"""`sarsa`: the move of highest value in the lab's SARSA table for the Tak board
(`mancala.games.tak.sarsa`, learnt by `mancala sarsa`), ties at random.

It plays the boards the lab ships a table for (`mancala/models/tak/sarsa-NxN.npz`); a
position whose features the table never met has every move at 0, so it plays at random
there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mancala.ai.base import Player, require_moves
from mancala.games.tak import sarsa
from mancala.games.tak.fast import to_arrays
from mancala.games.tak.policies import entry, position_key
from mancala.games.tak.state import TakState


def trained_games() -> list[dict[str, Any]]:
    """The Tak boards a table is shipped for."""
    return [{"variant": TakState.game, "size": size} for size in sarsa.shipped_sizes()]


def has_table() -> bool:
    return bool(sarsa.shipped_sizes())


class SarsaPlayer(Player):
    """Greedy over the shipped SARSA table of the board."""

    name = "sarsa"

    def choose_move(self, state: TakState) -> int:
        moves = np.array(require_moves(state), np.int64)
        table = sarsa.shipped_table(state.size)
        squares, reserves, actions = table.keys
        key = position_key(*to_arrays(state), squares, reserves)
        values = table.values[entry(key, moves, actions, len(table.values) - 1)]
        return self.rng.choice([int(m) for m in moves[values == values.max()]])
