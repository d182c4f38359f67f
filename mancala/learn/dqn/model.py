"""The DQN's networks: the Q-network, the model that trains it, and the replay buffer."""

from __future__ import annotations

import numpy as np

from mancala.nn_lib.keras_io import import_keras

PAPER_HIDDEN = (128, 256)


def build_model(
    houses: int,
    hidden: tuple[int, ...] = PAPER_HIDDEN,
    inputs: int | None = None,
    outputs: int | None = None,
):
    """The Q-network: `inputs` (default the paper's 2*houses), dense relu layers,
    `outputs` linear values (default one Q-value a house)."""
    keras = import_keras()

    layers = [keras.Input((inputs or 2 * houses,))]
    layers += [keras.layers.Dense(n, activation="relu") for n in hidden]
    layers.append(keras.layers.Dense(outputs or houses))
    return keras.Sequential(layers, name="dqn")


def build_trainer(model, learning_rate: float):
    """A model sharing `model`'s layers whose output is Q(s, a) of the one-hot action a."""
    keras = import_keras()

    state = keras.Input(model.input_shape[1:])
    action = keras.Input((model.output_shape[-1],))
    chosen = keras.layers.Dot(axes=1)([model(state), action])
    trainer = keras.Model([state, action], chosen)
    trainer.compile(keras.optimizers.Adam(learning_rate), loss=keras.losses.Huber())
    return trainer


class Replay:
    """A ring buffer of (state, action, reward, next state, its legal moves, done); the
    next state may be stored in another width (`next_inputs`) than the state."""

    def __init__(self, size: int, inputs: int, actions: int, next_inputs: int | None = None):
        self.s = np.zeros((size, inputs), np.float32)
        self.s2 = np.zeros((size, next_inputs or inputs), np.float32)
        self.a = np.zeros(size, np.int64)
        self.r = np.zeros(size, np.float32)
        self.legal2 = np.zeros((size, actions), bool)
        self.done = np.zeros(size, bool)
        self.size, self.count = size, 0

    def add(self, s, a, r, s2, legal2, done) -> None:
        i = self.count % self.size
        self.s[i], self.a[i], self.r[i], self.s2[i] = s, a, r, s2
        self.legal2[i], self.done[i] = legal2, done
        self.count += 1

    def __len__(self) -> int:
        return min(self.count, self.size)
