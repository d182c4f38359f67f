"""Keras for the lab: imported quiet and on one thread; models saved atomically."""

from __future__ import annotations

import os
from typing import Any

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
