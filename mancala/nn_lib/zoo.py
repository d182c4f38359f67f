"""The zoo: the networks of docs/networks.md, a few lines each on `Network`.

Adding a network is adding a subclass here (name, encoders, hidden layers) and its name
to ZOO. Importing this module does not import Keras.

Each network plays Kalah and Sungka; those with an encoder of Tak planes (`encode_planes`)
play Tak too (the dense ones on the flattened planes, the CNNs over the board), the planes
followed by their hand-made feature planes (roads in one, squares held). cnn2x64h128
plays Tak alone: two convolutions, for a board seen two squares around each. nns1h128 and
the one-hot ones (nnx1h128, nnx3h80, nnx2h256) have none: their point is a way of seeing
houses (without the stores, or each count one-hot), which Tak's planes have no counterpart
of (the planes are one-hot already). nnxa2h512 values the board after each move
(`views.AfterstateView`) where the others value each house of the board before it;
nnxat2h512 sees besides what each side's next move would gain (`encoders.tactics`).

>>> sorted(ZOO)  # doctest: +NORMALIZE_WHITESPACE
['cnn2x64h128', 'cnns1h128', 'nn1h128', 'nn2h80', 'nn3h80', 'nns1h128', 'nnx1h128',
 'nnx2h256', 'nnx3h80', 'nnxa2h512', 'nnxat2h512']
>>> network("nn2h80").input_shape(), network("cnns1h128").input_shape()
((14,), (6, 2))
>>> network("nn2h80", game="tak").input_shape(), network("cnns1h128", game="tak").input_shape()
((800,), (5, 5, 32))
>>> sorted(name for name, cls in ZOO.items() if cls.encode_planes)
['cnn2x64h128', 'cnns1h128', 'nn1h128', 'nn2h80', 'nn3h80']
>>> network("nnx2h256", game="tak")
Traceback (most recent call last):
...
ValueError: network nnx2h256 does not play tak: it has no encoder for it
>>> network("nn9")
Traceback (most recent call last):
...
ValueError: unknown network 'nn9'; the zoo: nn1h128, nn2h80, ..., nnxat2h512
"""

from __future__ import annotations

import os
from typing import Any

from mancala.core.paths import MODELS_DIR
from mancala.games import DEFAULT_GAME
from mancala.nn_lib import encoders
from mancala.nn_lib.base import ZOO_GAMES, Network
from mancala.nn_lib.boards import trained_boards
from mancala.nn_lib.meta import describe_training, read_meta
from mancala.nn_lib.views import view_for

NUMBERS = ("no", "one", "two", "three", "four", "five", "six")
INPUTS = {  # what each encoder shows the network, in words
    "pits": "house and store counts",
    "houses": "house counts only",
    "one_hot": "one-hot house counts",
    "rows": "the two rows of houses",
}
TAK_INPUTS = {  # Tak: the planes and their feature planes (`mancala.games.tak.features`)
    "flat": "Tak: the planes flattened",
    "spatial": "Tak: the planes as a board",
}


class NN1H128(Network):
    """Dense, one hidden layer of 128; houses and stores."""

    name, hidden = "nn1h128", (128,)
    encode_planes = staticmethod(encoders.flat)


class NN2H80(Network):
    """Dense, two hidden layers of 80; houses and stores."""

    name, hidden = "nn2h80", (80, 80)
    encode_planes = staticmethod(encoders.flat)


class NN3H80(Network):
    """Dense, three hidden layers of 80; houses and stores."""

    name, hidden = "nn3h80", (80, 80, 80)
    encode_planes = staticmethod(encoders.flat)


class NNS1H128(Network):
    """Dense, one hidden layer of 128; houses only (no stores)."""

    name, hidden = "nns1h128", (128,)
    encode = staticmethod(encoders.houses)


class NNX1H128(Network):
    """Dense, one hidden layer of 128; one-hot house counts."""

    name, hidden = "nnx1h128", (128,)
    encode = staticmethod(encoders.one_hot)


class NNX3H80(Network):
    """Dense, three hidden layers of 80; one-hot house counts."""

    name, hidden = "nnx3h80", (80, 80, 80)
    encode = staticmethod(encoders.one_hot)


class NNX2H256(Network):
    """Dense, two hidden layers of 256; one-hot house counts (the zoo's biggest)."""

    name, hidden = "nnx2h256", (256, 256)
    encode = staticmethod(encoders.one_hot)


class NNXA2H512(Network):
    """One-hot house counts, two hidden layers of 512, one move ahead: it values the board
    after each legal move (from the side of the player to move then) where the others value
    a house."""

    name, hidden, afterstate = "nnxa2h512", (512, 512), True
    encode = staticmethod(encoders.one_hot)


class NNXAT2H512(NNXA2H512):
    """nnxa2h512 that also sees, on each board it values, what every house of either side
    would gain at once and whether it gives an extra turn (`encoders.tactics`)."""

    name, tactics = "nnxat2h512", True


class CNNS1H128(Network):
    """Conv1D (32 filters of width 3) over the two rows of houses, opposite houses
    aligned, then dense 128; houses only. Tak: Conv2D (32 filters of 3x3) over the board."""

    name, hidden = "cnns1h128", (128,)
    encode = staticmethod(encoders.rows)
    encode_planes = staticmethod(encoders.spatial)
    filters, width = 32, 3

    def layers(self, keras: Any) -> list[Any]:
        board = len(self.input_shape()) == 3  # (rows, columns, channels): a 2-D board
        conv = keras.layers.Conv2D if board else keras.layers.Conv1D
        return [
            *(
                conv(self.filters, self.width, padding="same", activation="relu")
                for _ in range(self.convolutions)
            ),
            keras.layers.Flatten(),
            *super().layers(keras),
        ]


class CNN2X64H128(CNNS1H128):
    """Tak alone: cnns1h128 with two convolutions of 64 filters, one after the other, so
    each square sees the squares two steps away."""

    name, filters, convolutions = "cnn2x64h128", 64, 2
    encode = None  # type: ignore[assignment]  # no sowing encoder: it plays Tak alone


ZOO: dict[str, type[Network]] = {
    cls.name: cls
    for cls in (
        NN1H128,
        NN2H80,
        NN3H80,
        NNS1H128,
        NNX1H128,
        NNX3H80,
        NNX2H256,
        CNNS1H128,
        CNN2X64H128,
        NNXA2H512,
        NNXAT2H512,
    )
}


def network(
    name: str,
    path: str | os.PathLike | None = None,
    game: str = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
) -> Network:
    """The zoo network `name` for a board of `game` (its default board unless `options`
    say otherwise; weights not loaded yet); ValueError for an unknown name, game or board."""
    if name not in ZOO:
        raise ValueError(f"unknown network {name!r}; the zoo: {', '.join(ZOO)}")
    return ZOO[name](path, game, options)


def networks_for(game: str) -> list[str]:
    """The zoo networks that can play `game` (those with an encoder for it).

    >>> networks_for("tak"), "cnn2x64h128" in networks_for("kalah")
    (['nn1h128', 'nn2h80', 'nn3h80', 'cnns1h128', 'cnn2x64h128'], False)
    """
    view = view_for(game, ZOO_GAMES[game])
    return [name for name, cls in ZOO.items() if view.encoder(cls) is not None]


def architecture(name: str) -> str:
    """The shape of the zoo network `name` in words, from its class.

    >>> architecture("nnx2h256")
    'two hidden layers of 256, one-hot house counts'
    >>> architecture("nnxa2h512")
    'two hidden layers of 512, one-hot house counts, the board after each move'
    >>> architecture("nnxat2h512")  # doctest: +NORMALIZE_WHITESPACE
    "two hidden layers of 512, one-hot house counts, each side's next-move gains,
     the board after each move"
    >>> architecture("cnns1h128")  # doctest: +NORMALIZE_WHITESPACE
    'a convolution (32 filters of 3), one hidden layer of 128, the two rows of houses,
     Tak: the planes as a board'
    >>> architecture("cnn2x64h128")[:49]
    'two convolutions (64 filters of 3), one hidden la'
    """
    cls = ZOO.get(name) or type(network(name))  # network() names the zoo for another name
    convs = f"{NUMBERS[cls.convolutions]} convolutions" if cls.convolutions > 1 else "a convolution"
    conv = f"{convs} ({cls.filters} filters of {cls.width})" if cls.filters else ""
    sizes = sorted(set(cls.hidden))
    count = NUMBERS[len(cls.hidden)] if len(cls.hidden) < len(NUMBERS) else len(cls.hidden)
    layers = f"{count} hidden layer{'s' * (len(cls.hidden) != 1)} of {', '.join(map(str, sizes))}"
    tak = TAK_INPUTS.get(cls.encode_planes.__name__, "") if cls.encode_planes else ""
    ahead = "the board after each move" if cls.afterstate else ""
    tactics = "each side's next-move gains" if cls.tactics else ""
    parts = [conv, layers, INPUTS.get(getattr(cls.encode, "__name__", ""), ""), tactics, ahead, tak]
    return ", ".join(part for part in parts if part)


def describe_network(network: str, path: str | os.PathLike | None = None) -> str:
    """'Network NAME: ARCHITECTURE; learnt the choices of TEACHER from DATA (DATE)', the
    training read from the metadata beside the weights (`mancala.nn_lib.meta`)."""
    home = next((game for game in ZOO_GAMES if network in networks_for(game)), None)
    weights = ZOO[network](path, home).path if home else None  # Kalah's, or Tak's alone
    training = describe_training(read_meta(weights) if weights else None)
    return f"Network {network}: {architecture(network)}; {training}"


def trained_games(network: str) -> list[dict[str, Any]]:
    """The rules (variant and options) of each board the zoo network has weights for."""
    return trained_boards(f"{network}.keras", MODELS_DIR)


def has_weights(network: str) -> bool:
    """True when the zoo network has weights for some game."""
    return bool(trained_games(network))
