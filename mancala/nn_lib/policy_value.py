"""AlphaZero-style policy-value networks, one per game: mancala/models/<game>/az-net.keras.

The input is the one-hot encoding of the position from the mover's side
(`encoders.one_hot`), then two dense hidden layers of HIDDEN units (relu) and two heads:
`policy`, one logit per house (whoever reads it masks the illegal houses), and `value`
(tanh), the expected outcome for the player to move (win 1, draw 0, loss -1). Keras
builds, fits and saves the model; searches read its weights as float32 arrays
(`PolicyValue.arrays`) and run the forward pass in numba (`mancala.ai.az`).

Targets come from two kinds of records (`teacher_targets`,
`mancala.learn.data.visit_targets`): a teacher's values of every legal move (the policy:
a sharp softmax of them; the value: the best move's final margin squashed by tanh), or a
search's visit counts (the policy: the counts normalised) and the game's outcome for the
mover (the value)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from mancala.game_state import GameState
from mancala.nn_lib import encoders
from mancala.nn_lib.base import (
    MODELS_DIR,
    NET_GAMES,
    WeightsError,
    check_game,
    game_label,
    import_keras,
    masked_policy_loss,
    read_model,
    save_keras,
    soft_choice,
    untrained_model,
    weights_path,
)
from mancala.nn_lib.meta import UNKNOWN, write_meta

NAME = "az-net"
HIDDEN = 256
VALUE_SCALE = 2.0  # seeds: a teacher's final margin m becomes the value tanh(m / VALUE_SCALE)
TEACHER_TEMPERATURE = 1.0  # seeds: a move one seed worse than the best gets 1/e its weight
Arrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # rel, policy, mask, value


def weights_file(game: str, models: str | os.PathLike | None = None) -> Path:
    """Where the policy-value weights of `game` live (in `models`, else MODELS_DIR)."""
    return weights_path(NAME, game, Path(models or MODELS_DIR))


def make_command(game: str) -> str:
    """The command that makes the weights of `game` (see docs/az.md)."""
    return f"python mancala/selfplay.py --variant {game} --from runs/NAME/games.jsonl"


def trained_games() -> list[dict[str, Any]]:
    """The rules (variant and options) of each game that has shipped weights."""
    return [
        {"variant": game, **options}
        for game, options in NET_GAMES.items()
        if weights_file(game).is_file()
    ]


def has_weights() -> bool:
    """True when some game has shipped policy-value weights."""
    return bool(trained_games())


def input_width(houses: int) -> int:
    """The one-hot input's width for `houses` houses a side."""
    return 2 * houses * encoders.ONE_HOT_BINS + 2


class PolicyValue:
    """The policy-value network of `game` (weights at `path`, the shipped file by default).

    `load()` raises WeightsError naming the file and the command that makes it.
    """

    def __init__(self, game: str = "kalah", path: str | os.PathLike | None = None) -> None:
        if game not in NET_GAMES:
            raise ValueError(f"the policy-value networks play {', '.join(NET_GAMES)}, not {game!r}")
        self.game, self.options = game, dict(NET_GAMES[game])
        self.path = Path(path) if path is not None else weights_file(game)
        self.model: Any = None
        self.arrays: tuple[np.ndarray, ...] = ()

    @property
    def houses(self) -> int:
        return self.options["houses"]

    def build(self) -> Any:
        keras = import_keras()
        inputs = keras.Input((input_width(self.houses),))
        x = keras.layers.Dense(HIDDEN, activation="relu", name="hidden1")(inputs)
        x = keras.layers.Dense(HIDDEN, activation="relu", name="hidden2")(x)
        outputs = {
            "policy": keras.layers.Dense(self.houses, name="policy")(x),
            "value": keras.layers.Dense(1, activation="tanh", name="value")(x),
        }
        return keras.Model(inputs, outputs, name=f"az-net-{self.game}")

    def fresh(self, seed: int | None = None) -> PolicyValue:
        """Start from untrained weights."""
        self._use(untrained_model(self.build, seed))
        return self

    def load(self) -> PolicyValue:
        """Read the weights file; WeightsError naming it and the command that makes it."""
        make = f"make it with `{make_command(self.game)}`"
        label = f"{NAME} ({self.game})"
        model = read_model(self.path, label, make)
        try:
            self._use(model)
        except Exception as error:  # another Keras model: its layers are not these
            raise WeightsError(
                f"{label}: {self.path} is not a policy-value network ({error}); {make}"
            ) from None
        got = (self.arrays[0].shape[0], self.arrays[4].shape[1])
        want = (input_width(self.houses), self.houses)
        if got != want:
            raise WeightsError(
                f"{NAME} ({self.game}): {self.path} maps {got[0]} inputs to {got[1]} moves, "
                f"but {game_label(self.game, **self.options)} needs {want[0]} -> {want[1]}; {make}"
            )
        return self

    def _use(self, model: Any) -> None:
        self.model = model
        layers = [model.get_layer(name) for name in ("hidden1", "hidden2", "policy", "value")]
        weights = [w for layer in layers for w in layer.get_weights()]
        weights[6] = weights[6][:, 0]  # the value head's kernel as a vector
        self.arrays = tuple(np.ascontiguousarray(w, dtype=np.float32) for w in weights)

    def save(
        self, path: str | os.PathLike | None = None, *, teacher: str = UNKNOWN, data: str = UNKNOWN
    ) -> Path:
        """Write the model atomically, and beside it the metadata of what trained it."""
        path = Path(path) if path is not None else self.path
        path.parent.mkdir(parents=True, exist_ok=True)
        save_keras(self.model, path)
        write_meta(path, teacher=teacher, data=data)
        return path

    def check_state(self, state: GameState) -> None:
        """ValueError unless `state` is the game this network was built for."""
        check_game(f"{NAME} was trained for", self.game, self.options, state)

    def predict(self, rel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keras's (policy logits (N, H), values (N,)) for boards `rel` (mover's view)."""
        out = self.model.predict_on_batch(encoders.one_hot(rel))
        return np.asarray(out["policy"]), np.asarray(out["value"])[:, 0]

    def fit(self, data: Arrays, *, epochs: int = 1, batch_size: int = 256) -> float:
        """Fit both heads to `data` (rel, policy, mask, value); the last epoch's loss."""
        keras = import_keras()
        if not getattr(self.model, "compiled", False):
            self.model.compile(
                optimizer=keras.optimizers.Adam(1e-3),
                loss={"policy": masked_policy_loss, "value": "mse"},
            )
        rel, policy, mask, value = data
        y = {
            "policy": np.concatenate([policy, mask], axis=1).astype(np.float32),
            "value": value.astype(np.float32)[:, None],
        }
        history = self.model.fit(
            encoders.one_hot(rel), y, epochs=epochs, batch_size=batch_size, verbose=0
        )
        self._use(self.model)
        return float(history.history["loss"][-1])


def teacher_targets(rel: np.ndarray, gains: np.ndarray, mask: np.ndarray) -> Arrays:
    """Targets from a teacher's move values (`mancala.nn_lib.data.record_positions`)."""
    h = mask.shape[1]
    policy = soft_choice(gains, mask, TEACHER_TEMPERATURE)
    margin = np.where(mask, gains, -np.inf).max(axis=1) + (rel[:, h] - rel[:, 2 * h + 1])
    return rel, policy.astype(np.float32), mask, np.tanh(margin / VALUE_SCALE)
