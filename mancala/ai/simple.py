"""The simple players: luck (random), greedy, the Sungka paper's max and exact, and
Tak's weighted random mover."""

from __future__ import annotations

from functools import cached_property

from mancala.ai.base import Player, is_sowing, require_moves
from mancala.ai.search_generic import OnePly
from mancala.game_state import GameState
from mancala.games.tak.actions import KINDS


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
    """One ply: the move that gains most seeds; an extra turn breaks ties; then random.
    In a game that is not sown, the move its evaluator likes best (`OnePly`)."""

    name = "greedy"

    @cached_property
    def _generic(self) -> OnePly:
        return OnePly(seed=self.rng.randrange(2**32))

    def choose_move(self, state: GameState) -> int:
        if not is_sowing(state):
            return self._generic.choose_move(state)
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


class Weighted(Player):
    """Tak: first places or moves a stack (placing with probability `place`, when both
    are possible), then a uniformly random move of that kind: the random mover of the
    student project the lab grew from, which moves stacks more often than `luck` does."""

    name = "weighted"

    def __init__(self, seed: int | None = None, place: float = 0.5) -> None:
        super().__init__(seed)
        if not 0 <= place <= 1:
            raise ValueError(f"the weight of placing is a probability, not {place!r}")
        self.place = place

    def choose_move(self, state: GameState) -> int:
        moves = require_moves(state)
        placements = len(KINDS) * state.size * state.size  # ids below it place a piece
        places = [m for m in moves if m < placements]
        shifts = [m for m in moves if m >= placements]
        placing = not shifts or (bool(places) and self.rng.random() < self.place)
        return self.rng.choice(places if placing else shifts)
