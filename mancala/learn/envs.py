"""Any game of `mancala.games` as a Gymnasium environment and as a PettingZoo AEC
environment (Kalah, Sungka, Tak).

Observations are seen from the agent's seat. A sowing game's is its board (the agent's
houses in sowing order, its store, the opponent's houses, the opponent's store); another
game's is the game's planes (`mancala.games.planes`; Tak: `mancala.games.tak.planes`, a
float32 tensor of stacks, top pieces, reserves and the player to move). Actions are the
game's action ids (`range(state.num_actions)`), and the action mask marks the legal ones.

`MancalaEnv` (Gymnasium): one agent against an opponent player from the registry;
`info["action_mask"]` marks the legal actions. In a sowing game the reward of a step is
the Sungka DQN paper's: the agent's gain in its store minus the opponent's gain, counted
from the agent's move until it moves again (the opponent's replies, extra turns
included, happen inside the step). Kalah's end-of-game sweep counts as a gain, so the
rewards of a game add up to the final score difference (less what the opponent gained
before the agent's first move, when the agent is second). In another game the reward
comes at the end: +1 for a win, -1 for a loss, 0 for a draw. An illegal action raises
ValueError, or with `illegal="lose"` ends the game with -1 for the agent (PettingZoo's
TerminateIllegalWrapper convention, for callers that sample actions without the mask).

>>> env = MancalaEnv("sungka", opponent="max")
>>> obs, info = env.reset(seed=0)
>>> obs.tolist(), info["action_mask"].tolist()
([7, 7, 7, 7, 7, 7, 7, 0, 7, 7, 7, 7, 7, 7, 7, 0], [1, 1, 1, 1, 1, 1, 1])
>>> obs, reward, terminated, truncated, info = env.step(0)
>>> int(reward), terminated, obs.tolist()   # the last shell lands in the head: again
(1, False, [0, 8, 8, 8, 8, 8, 8, 1, 7, 7, 7, 7, 7, 7, 7, 0])
>>> env.step(9)
Traceback (most recent call last):
...
ValueError: illegal action 9: move 9 is out of range: houses are numbered 0..6
>>> tak = MancalaEnv("tak", opponent="luck", size=4)
>>> obs, info = tak.reset(seed=0)
>>> obs.shape, int(info["action_mask"].sum())   # 4x4: 16 squares to place on
((18, 4, 4), 16)

`raw_env` / `env()` (PettingZoo AEC, in the style of pettingzoo.classic.connect_four):
agents "player_0" (moves first) and "player_1"; observations are
`{"observation": the view from that agent's seat, "action_mask": legal actions}` (the
mask is all zeros for the agent that is not to move). After an extra turn the same agent
acts again: `agent_selection` follows the rules' player to move. Rewards come at the
end, as in PettingZoo's classic games: +1 to the winner, -1 to the loser, 0 for a draw.
`raw_env` raises ValueError on an illegal action; `env()` wraps it with PettingZoo's
usual wrappers, so an illegal action there follows the documented PettingZoo
convention instead (TerminateIllegalWrapper: the game ends, the offender gets -1).
Stepping either environment after the game ended is an error (Gymnasium: ValueError;
PettingZoo: the finished agents must step with None, as every AEC env requires).
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from mancala.ai.base import Player, is_sowing
from mancala.ai.registry import make_player
from mancala.arena.openings import opening_going_on
from mancala.game_state import SUNGKA, IllegalMove
from mancala.games import new_game, planes
from mancala.games.masks import legal_mask
from mancala.games.sowing.view import seat_view

State = Any  # a state of any game of the protocol (mancala.games)
ILLEGAL = ("raise", "lose")


def observe(state: State, seat: int) -> np.ndarray:
    """The position seen from `seat`: a sowing board with its houses and store first,
    then the opponent's; another game's planes."""
    if is_sowing(state):
        return seat_view(state, seat)
    view = planes(state.game)
    if view is None:
        raise ValueError(f"{state.game} has no observation for environments")
    return view(state, seat)


def action_mask(state: State, seat: int) -> np.ndarray:
    """1 for each action `seat` may play now (all zeros when it is not `seat`'s turn)."""
    if state.player != seat:
        return np.zeros(state.num_actions, dtype=np.int8)
    return legal_mask([state])[0].astype(np.int8)


def _spaces(state: State) -> tuple[spaces.Box, spaces.Discrete]:
    if is_sowing(state):
        total = state.seeds * state.houses * 2
        board = spaces.Box(0, total, shape=(len(state.board),), dtype=np.int64)
    else:
        board = spaces.Box(0, 1, shape=observe(state, 0).shape, dtype=np.float32)
    return board, spaces.Discrete(state.num_actions)


def _result(state: State, seat: int) -> float:
    """+1 if `seat` has won, -1 if it has lost, else 0."""
    winner = state.winner()
    return 0.0 if winner is None else (1.0 if winner == seat else -1.0)


class MancalaEnv(gymnasium.Env):
    """One agent against `opponent` (a registry name or a Player) in the game `variant`.

    `seat` 0 moves first, 1 second; `reset(options={"seat": 1, "opponent": "exact"})`
    changes them for the next game, and `reset(options={"opening": 2})` starts it after
    2 uniformly random moves (drawn again while they end the game). Game options
    (houses, seeds, empty_capture, relay_limit; Tak's size and komi) go to
    `mancala.games.new_game`; they fix the spaces, so they are set here. `illegal` says
    what an illegal action does: "raise" (ValueError) or "lose" (the game ends, reward
    -1).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        variant: str = SUNGKA,
        opponent: str | Player = "luck",
        seat: int = 0,
        render_mode: str | None = None,
        illegal: str = "raise",
        **options: Any,
    ) -> None:
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of ansi, human or None, not {render_mode!r}")
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be 'raise' or 'lose', not {illegal!r}")
        self.start = new_game(variant, **options)
        self.illegal = illegal
        self.forfeit = False  # the agent lost by an illegal action
        self.observation_space, self.action_space = _spaces(self.start)
        self.render_mode = render_mode
        self.seat = _check_seat(seat)
        self.opponent_spec = opponent
        self.opponent: Player | None = None
        self.state: State | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        self.seat = _check_seat(options.pop("seat", self.seat))
        self.opponent_spec = options.pop("opponent", self.opponent_spec)
        plies = options.pop("opening", 0)
        if not isinstance(plies, int | np.integer) or plies < 0:
            raise ValueError(f"the opening is a number of moves >= 0, not {plies!r}")
        if options:
            raise ValueError(f"unknown reset option(s): {', '.join(sorted(options))}")
        if isinstance(self.opponent_spec, Player):
            self.opponent = self.opponent_spec
        else:
            self.opponent = make_player(
                self.opponent_spec, seed=int(self.np_random.integers(2**31))
            )
        self.state, self.forfeit = self._opening(int(plies)), False
        self._opponent_moves()
        return observe(self.state, self.seat), self._info()

    def _opening(self, plies: int) -> State:
        """The start after `plies` random moves that leave the game going on."""
        rng = random.Random(int(self.np_random.integers(2**31)))
        state = opening_going_on(self.start, plies, rng)
        if state is None:
            raise ValueError(f"every opening of {plies} random moves tried ended the game")
        return state

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise ValueError("call reset() before step()")
        if self.state.is_over() or self.forfeit:
            raise ValueError("the game is over: call reset() before step()")
        before = self.state
        try:
            self.state = self.state.play(int(action) if isinstance(action, np.integer) else action)
        except IllegalMove as error:
            if self.illegal == "raise":
                raise ValueError(f"illegal action {action!r}: {error}") from None
            self.forfeit = True
            return observe(self.state, self.seat), -1.0, True, False, self._info()
        self._opponent_moves()
        if self.render_mode == "human":
            print(self.render_text())
        reward = self._reward(before)
        return observe(self.state, self.seat), reward, self.state.is_over(), False, self._info()

    def _reward(self, before: State) -> float:
        """The reward of the step from `before` to now (see the module text)."""
        if not is_sowing(self.state):
            return _result(self.state, self.seat) if self.state.is_over() else 0.0
        (b0, b1), (a0, a1) = before.scores(), self.state.scores()
        gains = (a0 - b0, a1 - b1)
        return float(gains[self.seat] - gains[1 - self.seat])

    def _opponent_moves(self) -> None:
        while not self.state.is_over() and self.state.player != self.seat:
            self.state = self.state.play(self.opponent.choose_move(self.state))

    def _info(self) -> dict[str, Any]:
        mask = action_mask(self.state, self.seat)
        if self.forfeit:
            mask[:] = 0
        if is_sowing(self.state):
            return {"action_mask": mask, "scores": self.state.scores()}
        return {"action_mask": mask}

    def render_text(self) -> str:
        return str(self.state)

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.render_text()
        if self.render_mode == "human":
            print(self.render_text())
        return None


def _check_seat(seat: Any) -> int:
    if seat not in (0, 1) or isinstance(seat, bool):
        raise ValueError(f"seat must be 0 (first) or 1 (second), not {seat!r}")
    return int(seat)


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped environment)
    """Both seats of the game `variant` as a PettingZoo AEC environment (see the module
    doc)."""

    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "mancala_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self, variant: str = SUNGKA, render_mode: str | None = None, **options: Any
    ) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of ansi, human or None, not {render_mode!r}")
        self.render_mode = render_mode
        self.start = new_game(variant, **options)
        self.state = self.start
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        board, actions = _spaces(self.start)
        mask = spaces.Box(0, 1, shape=(self.start.num_actions,), dtype=np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": board, "action_mask": mask})
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: actions for agent in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        return {
            "observation": observe(self.state, seat),
            "action_mask": action_mask(self.state, seat),
        }

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.state = self.start
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[self.state.player]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        try:
            self.state = self.state.play(int(action) if isinstance(action, np.integer) else action)
        except IllegalMove as error:
            raise ValueError(f"illegal action {action!r} by {agent}: {error}") from None
        self._clear_rewards()
        if self.state.is_over():
            winner = self.state.winner()
            if winner is not None:
                self.rewards[self.possible_agents[winner]] = 1
                self.rewards[self.possible_agents[1 - winner]] = -1
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[self.state.player]  # extra turn: again
        self._cumulative_rewards[agent] = 0
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.state)

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return str(self.state)
        if self.render_mode == "human":
            print(self.state)
        return None

    def close(self) -> None:
        pass


def env(variant: str = SUNGKA, render_mode: str | None = None, **options: Any) -> AECEnv:
    """`raw_env` in PettingZoo's usual wrappers: an illegal action ends the game (-1 to
    the offender, TerminateIllegalWrapper); an out-of-range one fails an assertion."""
    wrapped = raw_env(variant, render_mode, **options)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
