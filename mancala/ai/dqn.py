"""The `dqn` player: the Sungka paper's deep Q-network, trained by mancala/commands/dqn.py.

One net for each variant and seat, because the paper trains the first and the second
player apart: `dqn` plays whichever net was trained for the seat it moves in
(mancala/models/GAME/dqn-first.keras or dqn-second.keras). The paper's net
sees the houses only, from the mover's side (its own in sowing order, then the
opponent's, divided by the opening seeds a house); a net may read the zoo's one-hot
counts and stores instead (its input width tells which), or be an afterstate net (one
output): a move's Q-value is then what it gains plus, or minus, the net's value of the
board after it (`afterstate_q`), which it may see with each side's next-move gains beside
it (its input width tells). The legal move with the highest Q-value is played; with
`epsilon` > 0 a uniformly random legal move is played that often (the paper tests with
0.01). Nets are loaded on first use and decide in numpy.

>>> encode([GameState.new("kalah").play(0)]).tolist()   # player 1 to move
[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.25, 1.25, 1.25, 1.25, 1.0]]
>>> DQNPlayer(models_dir="/nowhere").choose_move(GameState.new("sungka"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: no DQN weights at /nowhere/sungka/dqn-first.keras; make them with: mancala dqn ...
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mancala.ai.base import Player, require_moves
from mancala.core.paths import MODELS_DIR
from mancala.game_state import DEFAULTS, GameState
from mancala.games.masks import legal_mask
from mancala.games.sowing.view import houses_of, mover_views
from mancala.nn_lib.choice import masked_argmax
from mancala.nn_lib.encoders import one_hot
from mancala.nn_lib.views import AfterstateView, with_tactics

SEATS = ("first", "second")


def weights_path(variant: str, seat: int, models_dir: str | os.PathLike = MODELS_DIR) -> Path:
    """Where the net of `variant` for `seat` (0 first, 1 second) lives: in the game's
    folder, as every network of the lab (models/GAME/dqn-SEAT.keras)."""
    return Path(models_dir) / variant / f"dqn-{SEATS[seat]}.keras"


def weights_file(variant: str, seat: int, models_dir: str | os.PathLike = MODELS_DIR) -> Path:
    """The net of `variant` for `seat` to read from `models_dir`: `weights_path`, or where
    a folder made before the nets moved into the game's folder holds it
    (dqn-GAME-SEAT.keras beside the others), when only that file is there."""
    path = weights_path(variant, seat, models_dir)
    old = Path(models_dir) / f"dqn-{variant}-{SEATS[seat]}.keras"
    return old if not path.is_file() and old.is_file() else path


def train_command(variant: str, seat: int) -> str:
    """The command that trains (and saves) the net of `variant` for `seat`."""
    return f"mancala dqn --variant {variant} --seat {SEATS[seat]}"


def has_weights() -> bool:
    """True when every shipped net (both variants, both seats) is in mancala/models/."""
    return all(weights_path(v, s).is_file() for v in DEFAULTS for s in (0, 1))


def encode(states: Sequence[GameState]) -> np.ndarray:
    """The paper's input: houses only, the mover's then the opponent's, / opening seeds."""
    return houses_of(mover_views(states)).astype(np.float32) / states[0].seeds


def encode_one_hot(states: Sequence[GameState]) -> np.ndarray:
    """The zoo's one-hot input: each house count one-hot, then both stores."""
    return one_hot(mover_views(states))


ENCODERS = {"houses": encode, "one_hot": encode_one_hot}
AFTERSTATE = "afterstate"  # a net of one output: the value of the board after a move
AFTERSTATE_TACTICS = "afterstate_tactics"  # the same, each side's next-move gains beside
AFTERSTATE_FORMS = (AFTERSTATE, AFTERSTATE_TACTICS)
FORMS = (*ENCODERS, *AFTERSTATE_FORMS)  # what `mancala dqn --encoder` offers


def afterstate_q(forward, variant: str, rel: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Q-values (N, H) of an afterstate net `forward` for boards `rel` from the mover's
    side: what each legal move gains, plus the net's value of the board after it for the
    player to move then (minus it when that is the opponent), in rewards (seeds / the
    seeds a house starts with); 0 where `mask` is off."""
    scale = DEFAULTS[variant]["seeds"]
    view, encode = afterstate_view(variant), afterstate_encoder(variant, forward.inputs)
    return view.board_values(lambda after: forward(encode(after)) * scale, rel, mask) / scale


@functools.cache
def afterstate_view(variant: str) -> AfterstateView:
    """The afterstate view of `variant`'s default board (made once)."""
    return AfterstateView(variant, DEFAULTS[variant])


def afterstate_encoders(variant: str) -> dict:
    """{form: the input of its afterstate net}: the zoo's one-hot counts and stores of the
    board after a move, alone or with each side's next-move gains (`encoders.tactics`)."""
    rules = afterstate_view(variant).rules
    return {
        AFTERSTATE: one_hot,
        AFTERSTATE_TACTICS: functools.partial(with_tactics, one_hot, rules),
    }


@functools.cache
def afterstate_encoder(variant: str, inputs: int):
    """The afterstate input of `variant` that is `inputs` numbers wide."""
    blank = afterstate_view(variant).blank()
    for encode in afterstate_encoders(variant).values():
        if encode(blank).shape[1] == inputs:
            return encode
    raise ValueError(f"an afterstate net reading {inputs} inputs fits no form of {variant}")


def encoder_for(forward, state: GameState):
    """The encoder whose input width the net `forward` reads, for `state`'s board."""
    for encoder in ENCODERS.values():
        if encoder([state]).shape[1] == forward.inputs:
            return encoder
    raise ValueError(
        f"a DQN net reading {forward.inputs} inputs fits no encoder of {state.variant}"
    )


def q_function(forward, state: GameState):
    """states -> their Q-values (N, H) by the net `forward`, for boards like `state`'s:
    an afterstate net's (one output), else the net's outputs on the input it reads."""
    if forward.outputs == 1:
        return lambda states: afterstate_q(
            forward, state.variant, mover_views(states), legal_mask(states)
        )
    encoder = encoder_for(forward, state)
    return lambda states: forward(encoder(states))


def load_forward(path: Path, variant: str, seat: int):
    """A NumpyForward of the .keras file at `path`; ValueError (a WeightsError) naming the
    command that makes it when the file is missing or unreadable."""
    from mancala.nn_lib.numpy_forward import NumpyForward
    from mancala.nn_lib.saved import read_model

    make = f"make them with: {train_command(variant, seat)}"
    if not path.is_file():
        raise ValueError(f"no DQN weights at {path}; {make}")
    return NumpyForward(read_model(path, f"DQN ({variant}, {SEATS[seat]} seat)", make))


class DQNPlayer(Player):
    """The argmax of the Q-net trained for the seat it moves in, over the legal moves.

    `forwards` maps (variant, seat) to a callable batch -> Q-values (tests and training
    pass a live net); otherwise nets load from `models_dir` when first needed.
    """

    def __init__(
        self,
        seed: int | None = None,
        epsilon: float = 0.0,
        models_dir: str | os.PathLike = MODELS_DIR,
        forwards: dict | None = None,
    ) -> None:
        super().__init__(seed)
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be between 0 and 1, not {epsilon!r}")
        self.epsilon = epsilon
        self.models_dir = Path(models_dir)
        self.forwards = dict(forwards or {})
        self.q_functions: dict[tuple[str, int], object] = {}  # made once a net
        self.np_rng = np.random.default_rng(seed)

    def forward(self, state: GameState):
        """The Q-net for `state`'s variant and mover's seat (loaded on first use)."""
        if (state.houses, state.seeds) != tuple(DEFAULTS[state.variant].values()):
            raise ValueError(
                f"dqn was trained for {state.variant} with {DEFAULTS[state.variant]}, not "
                f"{state.houses} houses of {state.seeds}"
            )
        key = (state.variant, state.player)
        if key not in self.forwards:
            path = weights_file(state.variant, state.player, self.models_dir)
            self.forwards[key] = load_forward(path, state.variant, state.player)
        return self.forwards[key]

    def q_values(self, states: Sequence[GameState]) -> np.ndarray:
        """The Q-values of `states`, all of one variant and mover, by the net of their seat."""
        forward = self.forward(states[0])  # refuses a board it was not trained for
        key = (states[0].variant, states[0].player)
        if key not in self.q_functions:
            self.q_functions[key] = q_function(forward, states[0])
        return self.q_functions[key](states)

    def choose_moves(self, states: Sequence[GameState]) -> list[int]:
        moves = [0] * len(states)
        groups: dict[tuple[str, int], list[int]] = {}
        for k, state in enumerate(states):
            groups.setdefault((state.variant, state.player), []).append(k)
        for ks in groups.values():
            batch = [states[k] for k in ks]
            for state in batch:
                require_moves(state)  # IllegalMove when a game is over
            legal = legal_mask(batch)
            chosen = masked_argmax(self.q_values(batch), legal)
            for k, move, row in zip(ks, chosen, legal):
                if self.epsilon and self.np_rng.random() < self.epsilon:
                    move = self.np_rng.choice(np.flatnonzero(row))
                moves[k] = int(move)
        return moves

    def choose_move(self, state: GameState) -> int:
        return self.choose_moves([state])[0]

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: Q-value}} as the net sees them."""
        require_moves(state)
        legal = legal_mask([state])[0]
        q = self.q_values([state])[0]
        moves = {int(m): float(q[m]) for m in np.flatnonzero(legal)}
        return {"value": max(moves.values()), "moves": moves}
