"""A network kept in a .keras file: the one way every network of the lab is made, read and
written (the zoo's `Network`, the policy-value `PolicyValue`; the DQN's nets are read by
`read_model` too).

A subclass says what it is (`label`), how its file is made (`make`), how to build it
(`build`) and how to take a model in (`_adopt`: check the model read from a file fits,
then `_use` it). `load()` refuses weights of another input encoding (the metadata beside
them, `meta.py`), unless the subclass can read them as they were (`_upgrade`), and a
missing, damaged or foreign file, with a WeightsError naming the file and the command
that makes it; `save()` writes the model atomically with its metadata.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Self

from mancala.nn_lib.keras_io import import_keras, save_keras
from mancala.nn_lib.meta import UNKNOWN, read_encoding, write_meta


class WeightsError(ValueError):
    """A network's weights file is missing, unreadable or of the wrong shape."""


def read_model(path: Path, label: str, make: str) -> Any:
    """The Keras model in `path`; WeightsError naming `label`, the file and `make` (how to
    make it) when the file is missing or unreadable."""
    if not path.is_file():
        raise WeightsError(f"{label}: no weights file {path}; {make}")
    keras = import_keras()
    try:
        return keras.models.load_model(path, compile=False)
    except Exception as error:  # Keras raises many kinds on a damaged or foreign file
        raise WeightsError(
            f"{label}: {path} is not a readable Keras file ({type(error).__name__}: {error}); "
            f"{make}"
        ) from None


def encoding_error(path: Path, found: int, wanted: int, label: str, make: str) -> WeightsError:
    """The error of weights `path` saved with input encoding `found`, not `wanted`."""
    return WeightsError(
        f"{label}: {path} was trained on inputs of encoding version {found}, but this "
        f"version of the lab encodes version {wanted}: the weights would read the "
        f"wrong inputs; {make}"
    )


def untrained_model(build: Callable[[], Any], seed: int | None) -> Any:
    """`build()` with untrained weights, drawn from `seed` when one is given."""
    keras = import_keras()
    if seed is not None:
        keras.utils.set_random_seed(seed)
    return build()


class SavedModel:
    """A Keras model and the file it lives in (`path`)."""

    ENCODING: ClassVar[int] = 1  # raised when what the network reads changes

    path: Path
    model: Any

    @property
    def label(self) -> str:
        """What the network is, in the words of its messages ("network nn1h128")."""
        raise NotImplementedError

    def make(self) -> str:
        """How its weights file is made, as a message ends ("make it with `...`")."""
        raise NotImplementedError

    def build(self) -> Any:
        """A new Keras model of this network's shape."""
        raise NotImplementedError

    def _use(self, model: Any) -> None:
        """Play with `model` from now on (copies what the fast forward pass reads)."""
        raise NotImplementedError

    def _adopt(self, model: Any, make: str) -> None:
        """Check that `model`, read from `path`, is this network (WeightsError if not,
        ending with `make`), then use it."""
        self._use(model)

    def _metadata(self) -> dict[str, Any]:
        """Keys of the metadata file beyond the teacher, the data and the encoding."""
        return {}

    def fresh(self, seed: int | None = None) -> Self:
        """Start from untrained weights."""
        self._use(untrained_model(self.build, seed))
        return self

    def _upgrade(self, model: Any, found: int, make: str) -> Any:
        """`model`, read from weights of input encoding `found` (not this version's), made
        to read this version's inputs as it read its own; WeightsError where it cannot."""
        raise encoding_error(self.path, found, self.ENCODING, self.label, make)

    def load(self) -> Self:
        """Read the weights file; WeightsError naming it and the command that makes it."""
        make = self.make()
        found = read_encoding(self.path) if self.path.is_file() else self.ENCODING
        model = read_model(self.path, self.label, make)
        if found != self.ENCODING:
            model = self._upgrade(model, found, make)
        self._adopt(model, make)
        return self

    def load_or_fresh(self, seed: int | None = None) -> tuple[Self, bool]:
        """Load the weights when the file exists, else fresh ones; (self, loaded?)."""
        if self.path.is_file():
            return self.load(), True
        return self.fresh(seed), False

    def save(
        self, path: str | os.PathLike | None = None, *, teacher: str = UNKNOWN, data: str = UNKNOWN
    ) -> Path:
        """Write the model atomically (a temp file in the same folder, then a rename), and
        beside it the metadata of what trained it (`meta.write_meta`), always, so an old
        description never stays beside new weights."""
        path = Path(path) if path is not None else self.path
        save_keras(self.model, path)  # makes the folder too
        write_meta(path, teacher=teacher, data=data, encoding=self.ENCODING, **self._metadata())
        self._use(self.model)
        return path
