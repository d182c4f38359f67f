"""Keras for the lab: imported quiet and on one thread; models saved atomically."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from mancala.core.atomic import atomic_path
from mancala.core.quiet import import_tensorflow_quietly


def import_keras() -> Any:
    """Keras, with TensorFlow held to one thread (the machine is shared) and quiet."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import_tensorflow_quietly()
    import keras

    if keras.backend.backend() == "tensorflow":
        import tensorflow as tf

        try:
            tf.config.threading.set_intra_op_parallelism_threads(1)
            tf.config.threading.set_inter_op_parallelism_threads(1)
        except RuntimeError:  # already initialised: the first call's setting stays
            pass
    return keras


def save_keras(model: Any, path: str | os.PathLike) -> None:
    """Write a Keras model to the .keras file `path` atomically (temp file, then rename)."""
    with atomic_path(path, ".keras") as temp:
        model.save(temp)


def stopping_callbacks(stop: Callable[[], bool] | None) -> list[Any]:
    """Keras callbacks that end a fit after the batch during which `stop()` became true
    (none when `stop` is None)."""
    if stop is None:
        return []
    keras = import_keras()

    class StopWhenAsked(keras.callbacks.Callback):
        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            if stop():
                self.model.stop_training = True

    return [StopWhenAsked()]


def batches(
    size: int, make: Callable[[np.ndarray], tuple[Any, Any]], batch_size: int, seed: int = 0
) -> Any:
    """A Keras dataset of `size` examples, `batch_size` a batch, in a new random order each
    epoch; `make(rows)` builds a batch's (inputs, targets) from its rows' indices, so that
    only a batch is ever encoded (a wide policy target for every example would not fit).

    >>> data = batches(5, lambda rows: (rows, rows * 2), batch_size=2)
    >>> len(data), sorted(np.concatenate([data[i][0] for i in range(len(data))]).tolist())
    (3, [0, 1, 2, 3, 4])
    """
    keras = import_keras()
    rng = np.random.default_rng(seed)

    class Batches(keras.utils.PyDataset):
        def __init__(self) -> None:
            super().__init__()
            self.order = rng.permutation(size)

        def __len__(self) -> int:
            return -(-size // batch_size)

        def __getitem__(self, index: int) -> tuple[Any, Any]:
            return make(np.sort(self.order[index * batch_size : (index + 1) * batch_size]))

        def on_epoch_end(self) -> None:
            self.order = rng.permutation(size)

    return Batches()


def widen_inputs(old: Any, new: Any) -> Any:
    """`new`, a model of `old`'s layers that reads more inputs (the added ones last), with
    `old`'s weights and the added inputs weighted zero: it gives what `old` gave of the
    inputs they share. ValueError when the layers differ otherwise."""
    for old_layer, new_layer in zip(old.layers, new.layers, strict=True):
        weights = []
        for had, shape in zip(
            old_layer.get_weights(), [w.shape for w in new_layer.get_weights()], strict=True
        ):
            if had.shape != shape:
                same = had.ndim >= 2 and had.shape[:-2] + had.shape[-1:] == shape[:-2] + shape[-1:]
                if not same or shape[-2] < had.shape[-2]:  # only a kernel's inputs grow
                    raise ValueError(f"layer {new_layer.name}: {had.shape} cannot widen to {shape}")
                pad = [(0, 0)] * had.ndim
                pad[-2] = (0, shape[-2] - had.shape[-2])
                had = np.pad(had, pad)
            weights.append(had)
        new_layer.set_weights(weights)
    return new


def over_groups(model: Any) -> Any:
    """A model applying `model` (one input in, one number out) to each input of a group:
    (N, K, *inputs) in, (N, K) out, its weights `model`'s own."""
    keras = import_keras()
    groups = keras.Input((None, *model.input_shape[1:]))
    each = keras.layers.TimeDistributed(model)(groups)
    return keras.Model(groups, keras.layers.Reshape((-1,))(each), name=f"{model.name}_groups")
