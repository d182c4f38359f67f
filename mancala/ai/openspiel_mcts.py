"""`openspiel-mcts[:simulations]`: OpenSpiel's own C++ MCTS bot (pyspiel.MCTSBot with
random rollouts) as a player, for comparing our search with it. OpenSpiel is optional.
Its search cannot be stopped from outside (no deadline), so the registry bounds its
simulations tightly instead; its tree is kept within `limits.memory`.

Only Kalah(6,4) with the standard capture (OpenSpiel's `mancala`). pyspiel cannot set
an arbitrary position, so the adapter replays one: it keeps the positions its own moves
led to (the last KEEP of them, with their pyspiel states) and finds the opponent's
moves from one of them to the position asked; a position that is not so found is
searched for from the opening, up to MAX_TURNS changes of turn (a tournament's random
opening).
A position reached neither way (one built from a board) is refused with a ValueError.

OpenSpiel's layout differs: its index 0 is player 1's store, 1..6 player 0's houses,
7 player 0's store, 8..13 player 1's houses; actions 1..6 (player 0), 8..13 (player 1).
"""

from __future__ import annotations

from collections import OrderedDict

from mancala.ai.base import Player, require_moves
from mancala.ai.limits import REGISTRY_LIMITS, Limits
from mancala.game_state import KALAH, GameState
from mancala.games import Capability, capabilities
from mancala.games.replay import positions

DEFAULT_SIMULATIONS = 20_000
MAX_TURNS = 5  # changes of turn searched from the opening
KEEP = 1024  # positions remembered (more than the games a tournament plays at once)
OPENING = GameState.new(KALAH)


def action_of(state: GameState, move: int) -> int:
    """The OpenSpiel action of our `move` in `state`: 1..6 for player 0, 8..13 for 1."""
    return move + 1 + 7 * state.player


def _stores(state: GameState) -> tuple[int, int]:
    return state.board[state.store(0)], state.board[state.store(1)]


def _may_lead(start: GameState, target: GameState) -> bool:
    """False when no moves lead from `start` to `target`: stores never shrink."""
    (a0, a1), (b0, b1) = _stores(start), _stores(target)
    return a0 <= b0 and a1 <= b1


def find_path(start: GameState, target: GameState, turns: int) -> list[int] | None:
    """Moves that lead from `start` to `target` with at most `turns` changes of the
    player to move (extra turns are free: each adds a seed to a store, so chains end),
    or None. Stores never shrink, which prunes most of the tree."""
    if start == target:
        return []
    if start.is_over() or not _may_lead(start, target):
        return None
    for move in start.legal_moves():
        after = start.play(move)
        left = turns - (after.player != start.player)
        if left >= 0:
            rest = find_path(after, target, left)
            if rest is not None:
                return [move, *rest]
    return None


class OpenSpielMCTS(Player):
    """pyspiel.MCTSBot (UCT constant 2, one random rollout a leaf), `simulations` a move."""

    def __init__(
        self,
        seed: int | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        limits: Limits = REGISTRY_LIMITS,
    ) -> None:
        import pyspiel

        super().__init__(seed)
        if simulations < 1:
            raise ValueError(f"openspiel-mcts simulations must be at least 1, not {simulations!r}")
        self.simulations = simulations
        self.game = pyspiel.load_game("mancala")
        evaluator = pyspiel.RandomRolloutEvaluator(1, self.rng.randrange(2**31))
        self.bot = pyspiel.MCTSBot(
            self.game,
            evaluator,
            2.0,  # uct_c
            self.simulations,
            max(1, limits.memory >> 20),  # max_memory_mb
            False,  # solve
            self.rng.randrange(2**31),
            False,  # verbose
        )
        self.known: OrderedDict[GameState, object] = OrderedDict()

    def _spiel_state(self, state: GameState) -> object:
        if Capability.OPENSPIEL not in capabilities(state) or state.options != OPENING.options:
            raise ValueError("openspiel-mcts plays only Kalah(6,4) with the standard capture")
        if state in self.known:
            return self.known[state].clone()
        for root, spiel in reversed(self.known.items()):
            if root.player != state.player:  # the opponent moved in between
                path = find_path(root, state, 1)
                if path is not None:
                    return _replayed(root, spiel, path)
        path = next(
            (p for t in range(MAX_TURNS + 1) if (p := find_path(OPENING, state, t)) is not None),
            None,
        )
        if path is None:
            raise ValueError(
                "openspiel-mcts can only play positions reached by play from the opening"
            )
        return _replayed(OPENING, self.game.new_initial_state(), path)

    def choose_move(self, state: GameState) -> int:
        require_moves(state)
        spiel = self._spiel_state(state)
        action = self.bot.step(spiel)
        move = action - 1 - 7 * state.player
        after = state.play(move)
        self.known[after] = _replayed(state, spiel, [move])
        self.known.move_to_end(after)
        while len(self.known) > KEEP:
            self.known.popitem(last=False)
        return move


def _replayed(start: GameState, spiel, moves: list[int]):
    """A copy of pyspiel state `spiel` (which stands for `start`) after `moves`."""
    spiel = spiel.clone()
    for state, move in zip(positions(start, moves), moves):
        spiel.apply_action(action_of(state, move))
    return spiel
