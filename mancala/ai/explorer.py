"""Exploration: a player that now and then plays a uniformly random legal move instead."""

from __future__ import annotations

from collections.abc import Sequence

from mancala.ai.base import Player
from mancala.game_state import GameState


class Explorer(Player):
    """`player`, except that each move is a uniformly random legal one with probability
    `rate` (exploration: the games reach positions the players would not choose)."""

    def __init__(self, player: Player, rate: float, seed: int | None = None) -> None:
        super().__init__(seed)
        self.player, self.rate, self.name = player, rate, player.name

    def choose_moves(self, states: Sequence[GameState]) -> list[int]:
        moves = self.player.choose_moves(states)
        for i, state in enumerate(states):
            if self.rng.random() < self.rate:
                moves[i] = self.rng.choice(state.legal_moves())
        return moves

    def choose_move(self, state: GameState) -> int:
        return self.choose_moves([state])[0]
