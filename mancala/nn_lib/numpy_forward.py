"""A Keras model's forward pass in plain numpy, for deciding one position in microseconds.

A Keras call carries a fixed cost far above what a small network's arithmetic takes, so
one position at a time is decided here, in numpy over the weights (docs/networks.md has
the figures: `mancala bench networks`). Networks train with Keras and play with
`NumpyForward(model)`, which copies the weights once.

Supported layers (what the zoo uses): InputLayer, Dense, Conv1D and Conv2D (strides 1,
"valid" or "same" padding, channels last), Flatten, Reshape, Dropout, Activation, in a
single chain (a Sequential model, or a functional model without branches). Anything else
raises ValueError naming it.

>>> import keras
>>> model = keras.Sequential([keras.Input((7, 2)), keras.layers.Conv1D(4, 3, padding="same",
...     activation="relu"), keras.layers.Flatten(), keras.layers.Dense(3)])
>>> x = np.random.default_rng(0).random((5, 7, 2)).astype("float32")
>>> bool(np.allclose(NumpyForward(model)(x), model.predict_on_batch(x), atol=1e-5))
True
>>> again = NumpyForward.from_layers(NumpyForward(model).layers)
>>> bool(np.array_equal(again(x), NumpyForward(model)(x)))
True
>>> board = keras.Sequential([keras.Input((5, 5, 3)), keras.layers.Conv2D(4, 3, padding="same",
...     activation="relu"), keras.layers.Flatten(), keras.layers.Dense(2)])
>>> x = np.random.default_rng(0).random((4, 5, 5, 3)).astype("float32")
>>> bool(np.allclose(NumpyForward(board)(x), board.predict_on_batch(x), atol=1e-5))
True
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "linear": lambda x: x,
    "relu": lambda x: np.maximum(x, 0.0),
    "tanh": np.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "softmax": lambda x: _softmax(x),
}


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


Layer = tuple[str, dict, list[np.ndarray]]  # (kind, the config it needs, weights)
KEYS = ("name", "activation", "strides", "dilation_rate", "padding", "target_shape", "data_format")


def plain_layers(model) -> list[Layer]:
    """The model's layers as plain data (no Keras needed to use or unpickle them): each
    layer's kind, the part of its config the forward pass reads, its weights in float64."""
    return [
        (
            type(layer).__name__,
            {key: value for key, value in layer.get_config().items() if key in KEYS},
            [w.astype(np.float64) for w in layer.get_weights()],
        )
        for layer in model.layers
    ]


def _activation(config: dict) -> Callable[[np.ndarray], np.ndarray]:
    name = config.get("activation", "linear")
    if not isinstance(name, str) or name not in ACTIVATIONS:
        raise ValueError(f"activation {name!r} has no numpy forward pass")
    return ACTIVATIONS[name]


def _dense(config: dict, weights: list[np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    kernel, *rest = weights
    bias = rest[0] if rest else 0.0
    act = _activation(config)
    return lambda x: act(x @ kernel + bias)


def _check_conv(config: dict) -> None:
    """ValueError unless the convolution is one the forward pass does."""
    name, ones = config.get("name"), (1,) * len(config["strides"])
    if tuple(config["strides"]) != ones or tuple(config["dilation_rate"]) != ones:
        raise ValueError(f"layer {name}: only strides 1 and dilation 1 are supported")
    if config["padding"] not in ("valid", "same"):
        raise ValueError(f"layer {name}: padding {config['padding']!r} is not supported")
    if config.get("data_format", "channels_last") != "channels_last":
        raise ValueError(f"layer {name}: only channels last is supported")


def _conv1d(config: dict, weights: list[np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    _check_conv(config)
    kernel, *rest = weights  # (k, in, out)
    bias = rest[0] if rest else 0.0
    width = kernel.shape[0]
    flat = kernel.reshape(-1, kernel.shape[2])  # windows as rows: one matrix product
    act = _activation(config)
    same = config["padding"] == "same"

    def forward(x: np.ndarray) -> np.ndarray:  # x: (batch, length, channels)
        if same:
            left = (width - 1) // 2
            x = np.pad(x, ((0, 0), (left, width - 1 - left), (0, 0)))
        length = x.shape[1] - width + 1
        windows = np.stack([x[:, i : i + length, :] for i in range(width)], axis=2)
        return act(windows.reshape(*windows.shape[:2], -1) @ flat + bias)

    return forward


def _conv2d(config: dict, weights: list[np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    _check_conv(config)
    kernel, *rest = weights  # (kh, kw, in, out)
    bias = rest[0] if rest else 0.0
    high, wide, inputs, outputs = kernel.shape
    flat = kernel.reshape(high * wide * inputs, outputs)  # windows as rows: one matrix product
    act = _activation(config)
    same = config["padding"] == "same"

    def forward(x: np.ndarray) -> np.ndarray:  # x: (batch, rows, columns, channels)
        if same:
            top, left = (high - 1) // 2, (wide - 1) // 2
            x = np.pad(x, ((0, 0), (top, high - 1 - top), (left, wide - 1 - left), (0, 0)))
        rows, columns = x.shape[1] - high + 1, x.shape[2] - wide + 1
        windows = np.stack(
            [x[:, i : i + rows, j : j + columns, :] for i in range(high) for j in range(wide)],
            axis=3,
        )
        return act(windows.reshape(*windows.shape[:3], -1) @ flat + bias)

    return forward


def _reshape(config: dict) -> Callable[[np.ndarray], np.ndarray]:
    shape = tuple(config["target_shape"])
    return lambda x: x.reshape((x.shape[0], *shape))


def _step(layer: Layer) -> Callable[[np.ndarray], np.ndarray] | None:
    kind, config, weights = layer
    if kind in ("InputLayer", "Dropout"):
        return None
    if kind == "Dense":
        return _dense(config, weights)
    if kind == "Conv1D":
        return _conv1d(config, weights)
    if kind == "Conv2D":
        return _conv2d(config, weights)
    if kind == "Flatten":
        return lambda x: x.reshape(x.shape[0], -1)
    if kind == "Reshape":
        return _reshape(config)
    if kind == "Activation":
        return _activation(config)
    raise ValueError(f"layer {config.get('name')} ({kind}) has no numpy forward pass")


class NumpyForward:
    """`NumpyForward(model)(x)`: the model's output for the batch `x`, in float64 numpy.
    `layers` holds the weights as plain data; `NumpyForward.from_layers(layers)` rebuilds
    the same forward pass where Keras is not imported (a worker process)."""

    def __init__(self, model) -> None:
        self._use(plain_layers(model))

    @classmethod
    def from_layers(cls, layers: list[Layer]) -> NumpyForward:
        forward = cls.__new__(cls)
        forward._use(layers)
        return forward

    def _use(self, layers: list[Layer]) -> None:
        self.layers = layers
        self.steps = [step for step in map(_step, layers) if step is not None]

    @property
    def inputs(self) -> int:
        """The width of the input the first layer with weights reads (its kernel's rows)."""
        kernel = next(weights[0] for _, _, weights in self.layers if weights)
        return kernel.shape[-2]

    @property
    def outputs(self) -> int:
        """The width of the output of the last layer with weights (its kernel's columns)."""
        kernel = next(weights[0] for _, _, weights in reversed(self.layers) if weights)
        return kernel.shape[-1]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        for step in self.steps:
            x = step(x)
        return x
