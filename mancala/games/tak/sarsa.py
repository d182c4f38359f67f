"""Tabular SARSA for Tak, as the student project the lab grew from learnt it: an
epsilon-greedy agent plays one seat against a fixed opponent (random or weighted moves),
seats alternating by episode, and after each of its moves updates the value of its
previous (position, move) toward the reward plus `gamma` times the value of the move it
chose next (SARSA(0)); a finished game's reward is 1 for a win, 0 for a draw and
`loss` for a loss. The table aggregates positions and bounds its size as
`mancala.games.tak.policies` says. Randomness is numba's, seeded by the caller.

A learnt table is a `.npz` file (`save`, `load`): the table, its Zobrist words, the
reward of every episode learnt and a JSON header with the settings and the command that
learnt it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from mancala.core.atomic import atomic_path
from mancala.core.jit import njit
from mancala.core.paths import MODELS_DIR
from mancala.games.tak.fast import DRAW, _num_actions, legal_moves, play, result, to_arrays
from mancala.games.tak.policies import (
    MOST_PLIES,
    RANDOM,
    WEIGHTED,
    new_keys,
    policy_move,
    table_move,
)
from mancala.games.tak.state import new_tak

FORMAT = "mancala-tak-sarsa"
OPPONENTS = {"random": RANDOM, "weighted": WEIGHTED}
MAX_BITS = 26  # the largest table: 2**26 float32 values, 256 MiB


@dataclass
class Settings:
    """What a table learns with: the board, the agent's exploration `epsilon`, step size
    `alpha` and discount `gamma`, a lost game's reward, the opponent, the table's size."""

    size: int = 3
    epsilon: float = 0.1
    alpha: float = 0.99
    gamma: float = 0.99
    loss: float = 0.0
    opponent: str = "random"
    bits: int = 20

    def check(self) -> None:
        """ValueError naming the first setting out of bounds."""
        if not 3 <= self.size <= 8:
            raise ValueError(f"a Tak board is 3 to 8 squares a side, not {self.size}")
        for name in ("epsilon", "alpha", "gamma"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"SARSA's {name} is in 0..1, not {getattr(self, name)!r}")
        if not -1 <= self.loss <= 0:
            raise ValueError(f"a lost game's reward is in -1..0, not {self.loss!r}")
        if self.opponent not in OPPONENTS:
            raise ValueError(
                f"the opponent is one of {', '.join(OPPONENTS)}, not {self.opponent!r}"
            )
        if not 8 <= self.bits <= MAX_BITS:
            raise ValueError(f"a table has 2**8 to 2**{MAX_BITS} values, not 2**{self.bits}")


@dataclass
class Table:
    """A learnt table: its settings, values, Zobrist words, and the reward of every
    episode learnt so far (the agent's view)."""

    settings: Settings
    values: np.ndarray
    keys: tuple[np.ndarray, np.ndarray, np.ndarray]
    rewards: list[float] = field(default_factory=list)
    command: str = ""  # the command that learnt it, as its header says

    @classmethod
    def new(cls, settings: Settings) -> Table:
        settings.check()
        values = np.zeros(1 << settings.bits, np.float32)
        return cls(settings, values, new_keys(settings.size))

    def learn(self, episodes: int, seed: int) -> np.ndarray:
        """Play and learn `episodes` more episodes; their rewards."""
        s = self.settings
        meta, colours = to_arrays(new_tak(s.size))
        rewards = np.zeros(episodes, np.float64)
        first_seat = len(self.rewards) % 2
        learn(
            meta, colours, self.values, self.keys, episodes, s.epsilon, s.alpha, s.gamma,
            s.loss, OPPONENTS[s.opponent], seed, first_seat, rewards,
        )  # fmt: skip
        self.rewards.extend(float(r) for r in rewards)
        return rewards

    def save(self, path: str | Path) -> None:
        """Write the table to `path` (.npz) atomically."""
        header = {
            "format": FORMAT,
            "version": 1,
            "settings": asdict(self.settings),
            "episodes": len(self.rewards),
            "command": self.command,
        }
        with atomic_path(path, ".npz") as temp:
            with open(temp, "wb") as out:
                np.savez_compressed(
                    out, values=self.values, squares=self.keys[0], reserves=self.keys[1],
                    actions=self.keys[2], rewards=np.array(self.rewards, np.float32),
                    header=np.array(json.dumps(header)),
                )  # fmt: skip

    @classmethod
    def load(cls, path: str | Path) -> Table:
        """The table at `path`; ValueError saying what is wrong with a missing or
        malformed file."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"no SARSA table at {path}")
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                values = data["values"]
                keys = (data["squares"], data["reserves"], data["actions"])
                rewards = data["rewards"].astype(float).tolist()
            settings = Settings(**header["settings"])
            settings.check()
        except (OSError, KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path} is not a SARSA table ({error})") from error
        if header.get("format") != FORMAT:
            raise ValueError(f"{path} is not a SARSA table (format {header.get('format')!r})")
        size = settings.size
        expected = new_keys(size)
        if (
            values.dtype != np.float32
            or values.shape != (1 << settings.bits,)
            or any(k.shape != e.shape or k.dtype != e.dtype for k, e in zip(keys, expected))
        ):
            raise ValueError(f"{path}: its arrays do not fit a {size}x{size} table")
        return cls(settings, values, keys, rewards, str(header.get("command", "")))


def shipped_path(size: int) -> Path:
    """Where the lab's table for the `size` board is shipped."""
    return MODELS_DIR / "tak" / f"sarsa-{size}x{size}.npz"


@cache
def shipped_table(size: int) -> Table:
    """The lab's table for the `size` board, read once (ValueError saying how to learn
    one when there is none)."""
    path = shipped_path(size)
    if not path.is_file():
        raise ValueError(
            f"no SARSA table for Tak {size}x{size} at {path}; "
            f"learn one with `mancala sarsa --size {size} --runs 1 --out FILE` and copy it there"
        )
    return Table.load(path)


def shipped_sizes() -> list[int]:
    """The board sizes the lab ships a table for."""
    return [size for size in range(3, 9) if shipped_path(size).is_file()]


@njit(cache=True, nogil=True)
def learn(
    meta0, colours0, table, keys, episodes, epsilon, alpha, gamma, loss, opponent, seed,
    first_seat, rewards,
):  # fmt: skip
    """SARSA(0) over `episodes` games from the position (meta0, colours0), the agent in
    seat (first_seat + episode) % 2; each game's reward into `rewards`."""
    np.random.seed(seed)
    moves = np.empty(_num_actions(meta0[0]), np.int64)
    for episode in range(episodes):
        meta, colours = meta0.copy(), colours0.copy()
        seat = (first_seat + episode) % 2
        previous = -1
        reward = 0.0
        for _ in range(MOST_PLIES):
            code = result(meta, colours)
            if code >= 0:
                if code != DRAW:
                    reward = 1.0 if code % 2 == seat else loss
                break
            n = legal_moves(meta, colours, moves)
            if meta[1] % 2 == seat:
                move, index = table_move(meta, colours, moves, n, table, keys, epsilon)
                if previous >= 0:
                    table[previous] += alpha * (gamma * table[index] - table[previous])
                previous = index
            else:
                move = policy_move(meta, colours, moves, n, opponent, table, keys, 0.0)
            play(meta, colours, move)
        if previous >= 0:
            table[previous] += alpha * (reward - table[previous])
        rewards[episode] = reward
