"""The network players of the zoo (`nn1h128`, `cnns1h128`...): the argmax of a trained
network's move values over the legal moves, decided in numpy, many positions at once.

A name plays every board it has weights for: mancala/models/BOARD/NAME.keras (BOARD a
game's name for its default board, else 'tak-size6' and so on), each loaded when the
player is made. No weights for any game, or a damaged file, raises WeightsError
(a ValueError) naming the file and the command that makes it; a game it has no weights
for is refused before a move (ValueError).
`temperature` > 0 samples moves instead (exploration): softmax of values / temperature.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from mancala.ai.base import Player, require_moves
from mancala.game_state import KALAH, GameState
from mancala.nn_lib.boards import board_name, file_rules
from mancala.nn_lib.choice import masked_argmax, soft_choice
from mancala.nn_lib.zoo import network as zoo_network
from mancala.nn_lib.zoo import trained_games


class NetworkPlayer(Player):
    """Plays the legal move with the highest value the network gives it."""

    def __init__(
        self,
        seed: int | None = None,
        network: str = "nn1h128",
        temperature: float = 0.0,
        path: str | os.PathLike | None = None,
        net=None,
    ) -> None:
        super().__init__(seed)
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, not {temperature!r}")
        if net is None:
            # a file that names no board is Kalah's; with no weights at all, loading says how
            kalah = {"variant": KALAH}
            if path is None:
                boards = trained_games(network) or [kalah]
            else:
                boards = [file_rules(path) or kalah]
            nets = [zoo_network(network, path, b["variant"], b).load() for b in boards]
        else:
            nets = [net]
        self.nets = {n.board: n for n in nets}
        self.net = nets[0]  # the network of its first game (Kalah where it has one)
        self.name = self.net.name
        self.temperature = temperature
        self.np_rng = np.random.default_rng(seed)

    def choose_moves(self, states: Sequence[GameState]) -> list[int]:
        if not states:
            return []
        for state in states:
            require_moves(state)
        values, legal = self.net_for(states[0]).move_values(states)
        if self.temperature > 0:
            p = soft_choice(values, legal, self.temperature)
            return [int(self.np_rng.choice(len(row), p=row)) for row in p]
        return [int(m) for m in masked_argmax(values, legal)]

    def choose_move(self, state: GameState) -> int:
        return self.choose_moves([state])[0]

    def net_of(self, state: GameState):
        """The network of `state`'s board, or None when it has no weights for it."""
        try:
            return self.nets.get(board_name(state.game, state.options))
        except ValueError:  # a game or board no network plays
            return None

    def net_for(self, state: GameState):
        """The network of `state`'s board; ValueError when it has no weights for it."""
        net = self.net_of(state) or self.net
        net.check_state(state)
        return net

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: seeds gained}} as the network sees them."""
        require_moves(state)
        values, legal = self.net_for(state).move_values([state])
        moves = {int(m): float(values[0, m]) for m in np.flatnonzero(legal[0])}
        return {"value": max(moves.values()), "moves": moves}
