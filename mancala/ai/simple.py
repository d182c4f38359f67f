"""The simple players: luck (random), greedy, and the Sungka paper's max and exact."""

from __future__ import annotations

from mancala.ai.base import Player, require_moves
from mancala.game_state import GameState


class Luck(Player):
    """A uniformly random legal move."""

    name = "luck"

    def choose_move(self, state: GameState) -> int:
        return self.rng.choice(require_moves(state))


def gain(state: GameState, move: int) -> tuple[int, bool]:
    """Seeds the mover's store gains by `move`, and whether the mover moves again."""
    me = state.player
    after = state.play(move)
    again = after.player == me and not after.is_over()
    return after.scores()[me] - state.scores()[me], again


class Greedy(Player):
    """One ply: the move that gains most seeds; an extra turn breaks ties; then random."""

    name = "greedy"

    def choose_move(self, state: GameState) -> int:
        moves = require_moves(state)
        keys = {move: gain(state, move) for move in moves}
        best = max(keys.values())
        return self.rng.choice([move for move in moves if keys[move] == best])


class Max(Player):
    """The Sungka paper's `max`: the fullest own house (lowest number on a tie)."""

    name = "max"

    def choose_move(self, state: GameState) -> int:
        side = state.side(state.player)
        return max(require_moves(state), key=lambda move: (side[move], -move))


class Exact(Player):
    """The Sungka paper's `exact`: a house whose last seed lands in the store, else max."""

    name = "exact"

    def choose_move(self, state: GameState) -> int:
        side, h = state.side(state.player), state.houses
        # Sowing from house i with n seeds reaches the store (h - i steps away) when
        # n == h - i, or after whole laps (the lap skips the opponent's store: 2h+1 pits).
        exact = [m for m in require_moves(state) if side[m] % (2 * h + 1) == h - m]
        if exact:
            return max(exact)  # the one nearest the store keeps the others intact
        return Max.choose_move(self, state)
