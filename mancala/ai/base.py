"""The player interface: `choose_move(state)`, and `choose_moves(states)` for batches."""

from __future__ import annotations

import random
from collections.abc import Sequence

from mancala.game_state import GameState, IllegalMove


class Player:
    """A player picks a legal move of a position.

    Subclasses implement `choose_move`; players that can decide many positions at once
    (networks) override `choose_moves` too. `name` is the registry name that made it.
    """

    name: str = "player"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose_move(self, state: GameState) -> int:
        raise NotImplementedError

    def choose_moves(self, states: Sequence[GameState]) -> list[int]:
        """One move for each state (a loop here; batch players do better)."""
        return [self.choose_move(state) for state in states]

    def evaluate(self, state: GameState) -> dict | None:
        """The player's view of a position (e.g. value of each move), if it has one."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def is_sowing(state: GameState) -> bool:
    """Whether `state` is of a sowing game (Kalah, Sungka), whose players run on the numba
    kernels of `mancala.games.sowing.engine`; other games get the generic searches."""
    from mancala.games import Capability, capabilities

    return Capability.SOWING in capabilities(state)


def require_moves(state: GameState) -> list[int]:
    """The legal moves of `state`; IllegalMove if there are none (the game is over)."""
    moves = state.legal_moves()
    if not moves:
        raise IllegalMove("the game is over: no move can be chosen")
    return moves
