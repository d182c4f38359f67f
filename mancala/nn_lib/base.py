"""The network base class: encoder, model builder, fit, batch predict, save/load `.keras`
(the Keras helpers are in `keras_io`, the losses in `losses`, move choice in `choice`).

A network values the moves of a position as a search teacher valued them (see
`mancala/learn/teacher.py`); how it sees the game is the game's view (`views.py`): for
Kalah and Sungka one number a house from the mover's side (the seeds the mover gains by
playing it), or, for the networks that ask for it (`afterstate`), one number a board after
a move (what the player to move then gains from there on), every legal move tried; for
Tak one number a position after a move (its value for the mover), every legal move tried.
Players take the argmax over legal moves. Keras builds and fits the model; every move
decision runs `NumpyForward` over its weights (microseconds, where Keras `predict` costs
milliseconds).

A zoo network is a subclass that names itself, picks an encoder and its hidden layers
(`mancala/nn_lib/zoo.py`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mancala.core.paths import MODELS_DIR
from mancala.game_state import GameState
from mancala.games import DEFAULT_GAME
from mancala.nn_lib import encoders
from mancala.nn_lib.boards import (
    DEFAULT_BOARDS,
    NET_GAMES,
    board_flags,
    board_name,
    board_rules,
)
from mancala.nn_lib.choice import soft_choice
from mancala.nn_lib.keras_io import (
    import_keras,
    over_groups,
    stopping_callbacks,
    widen_inputs,
)
from mancala.nn_lib.losses import (
    masked_mse,
    masked_policy_loss,
    missed_weighted,
    value_and_choice,
)
from mancala.nn_lib.numpy_forward import NumpyForward
from mancala.nn_lib.saved import SavedModel, WeightsError
from mancala.nn_lib.views import view_for

ZOO_GAMES = DEFAULT_BOARDS  # the boards the zoo's networks are trained for


def weights_path(name: str, game: str = DEFAULT_GAME, models: Path = MODELS_DIR) -> Path:
    """Where the weights of network `name` for `game` live: models/<game>/<name>.keras
    (`game` being a board's name: 'tak', 'tak-size6')."""
    return Path(models) / game / f"{name}.keras"


POLICY_TEMPERATURE = 2.0  # seeds: a move two seeds worse than the best gets 1/e its weight
FIT_CHUNK = 200_000  # positions encoded at once by `Network.fit`
LEARNING_RATE = 1e-3  # Adam's, for a network's first fit (a refit may ask for less)
FIT_PROGRESS_SECONDS = 60.0  # a sliced fit says how far it is at least this often
AUGMENT_SEED = 0  # the draws of a view's augmentation (`Network.fit`): a fit repeats


def game_label(variant: str, **options: Any) -> str:
    """'kalah(6,4)', with any rule that is switched on: 'kalah(6,4, empty_capture)';
    a game without houses by its options: 'tak(size=5, komi=0)'."""
    if "houses" not in options:
        return f"{variant}(" + ", ".join(f"{key}={value}" for key, value in options.items()) + ")"
    rules = {key: on for key, on in options.items() if key not in ("houses", "seeds")}
    extra = "".join(f", {key}" for key, on in rules.items() if on is True)
    return f"{variant}({options['houses']},{options['seeds']}{extra})"


def check_game(made_for: str, game: str, options: dict[str, Any], state: GameState) -> None:
    """ValueError unless `state` is of `game` with `options`; the message begins with
    `made_for` ("network nn1h128 was built for")."""
    if state.game != game or any(getattr(state, key) != value for key, value in options.items()):
        wanted, got = game_label(game, **options), game_label(state.game, **state.options)
        raise ValueError(f"{made_for} {wanted}, not {got}")


class Network(SavedModel):
    """One network of the zoo: what it sees (`encode`), its shape (`hidden`), its weights.

    `load()` reads `path` (mancala/models/GAME/NAME.keras by default) and raises WeightsError
    naming the file and the command that makes it; `fresh()` starts untrained weights.
    """

    name: ClassVar[str] = ""
    hidden: ClassVar[tuple[int, ...]] = (128,)
    ENCODING: ClassVar[int] = 1  # raised when what `encode` shows the network changes
    encode: ClassVar[Callable[[np.ndarray], np.ndarray]] = staticmethod(encoders.pits)
    encode_planes: ClassVar[Callable[[np.ndarray], np.ndarray] | None] = None  # Tak: none
    filters: ClassVar[int] = 0  # convolution filters before the dense layers (0: none)
    convolutions: ClassVar[int] = 1  # convolutions of them, one after the other
    width: ClassVar[int] = 0  # the width of each filter

    objective: str = "policy"  # "policy": the teacher's soft choice; "values": its values;
    # "ranked": a position's moves in a group, their values and the teacher's choice among them
    afterstate: ClassVar[bool] = False  # sowing games: value the board after each move
    tactics: ClassVar[bool] = False  # sowing games: also see each side's next-move gains

    def __init__(
        self,
        path: str | os.PathLike | None = None,
        game: str = DEFAULT_GAME,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.variant, self.options = game, board_rules(game, options)
        self.view = view_for(game, self.options, self.afterstate)
        encode = self.view.encoder(self)
        if encode is None:
            raise ValueError(f"network {self.name} does not play {game}: it has no encoder for it")
        self.encode = encode  # this game's encoder (the class's `encode` is the sowing one)
        self.ENCODING = self.view.encoding or self.ENCODING  # Tak's inputs have their own
        self.objective = self.view.objective or self.objective
        self.path = Path(path) if path is not None else weights_path(self.name, self.board)
        self.model: Any = None
        self.forward: NumpyForward | None = None
        self._trainer: Any = None
        self.missed_weight = 1.0  # of the loss compiled (`compile`)

    # ----- shape ---------------------------------------------------------------------

    @property
    def outputs(self) -> int:
        """The width of the output: a house each (sowing), one value (Tak)."""
        return self.view.outputs

    def input_shape(self) -> tuple[int, ...]:
        return self.encode(self.view.blank()).shape[1:]

    def layers(self, keras: Any) -> list[Any]:
        """The hidden layers (a dense stack here; the CNN overrides it)."""
        return [keras.layers.Dense(units, activation="relu") for units in self.hidden]

    def build(self) -> Any:
        keras = import_keras()
        model = keras.Sequential(
            [
                keras.Input(self.input_shape()),
                *self.layers(keras),
                keras.layers.Dense(self.outputs, name="move_values"),
            ],
            name=self.name,
        )
        return model

    @property
    def board(self) -> str:
        """The board's name, its weights' folder: 'tak' for the default, 'tak-size6'..."""
        return board_name(self.variant, self.options)

    def check_state(self, state: GameState) -> None:
        """ValueError unless `state` is the game this network was built for."""
        check_game(f"network {self.name} was built for", self.variant, self.options, state)

    # ----- weights (SavedModel: fresh, load, load_or_fresh, save) ------------------------

    @property
    def label(self) -> str:
        return f"network {self.name}"

    def make(self) -> str:
        variant = f" --variant {self.variant}"
        train = f"`mancala train{variant}{board_flags(self.variant, self.options)}`"
        if self.board not in NET_GAMES:  # `mancala fit` reads the sowing games' default boards
            return f"make it with {train} (records games and trains the zoo)"
        return (
            f"make it with `mancala fit {self.name}{variant}` (from recorded games) "
            f"or {train} (records games and trains the zoo)"
        )

    def _metadata(self) -> dict[str, Any]:
        return {"rules": {"variant": self.variant, **self.options}}

    def _adopt(self, model: Any, make: str) -> None:
        want_in, want_out = self.input_shape(), (self.outputs,)
        got_in, got_out = tuple(model.input_shape[1:]), tuple(model.output_shape[1:])
        if (got_in, got_out) != (want_in, want_out):
            raise WeightsError(
                f"network {self.name}: {self.path} maps {got_in} -> {got_out}, but "
                f"{self.name} needs {want_in} -> {want_out}; {make}"
            )
        self._use(model)

    def _upgrade(self, model: Any, found: int, make: str) -> Any:
        """Weights of the inputs the view had before (`widens_from`) read the inputs added
        since with zero weights (`keras_io.widen_inputs`): they play as they did."""
        if found not in getattr(self.view, "widens_from", ()):
            return super()._upgrade(model, found, make)
        try:
            return widen_inputs(model, self.build())
        except ValueError as error:
            raise WeightsError(f"network {self.name}: {self.path}: {error}; {make}") from None

    def _use(self, model: Any) -> None:
        self.model = model
        self.forward = NumpyForward(model)
        self._trainer = None

    # ----- use -----------------------------------------------------------------------

    def predict(self, rel: np.ndarray) -> np.ndarray:
        """The outputs for raw inputs `rel` (the view's: boards from the mover's side, or
        Tak planes) in the teacher's units, numpy (N, outputs)."""
        if self.forward is None:
            raise ValueError(f"network {self.name} has no weights: call load() or fresh()")
        return self.view.unscale(self.forward(self.encode(rel)))

    def board_values(self, rel: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The value of each house (N, H) of sowing boards from the mover's side, legal
        where `mask` is set, in the teacher's units."""
        return self.view.board_values(self.predict, rel, mask)

    def move_values(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        """(values (N, actions), legal mask (N, actions)) for positions of this network's
        game; ValueError for another game."""
        for state in states:
            self.check_state(state)
        return self.view.move_values(self.predict, states)

    # ----- training ------------------------------------------------------------------

    def trainer(self) -> Any:
        """The Keras model fitted: the network itself, or for the "ranked" objective the
        network over each move of a group (`keras_io.over_groups`), sharing its weights."""
        if self.objective != "ranked":
            return self.model
        if self._trainer is None:
            self._trainer = over_groups(self.model)
        return self._trainer

    def compile(self, learning_rate: float = LEARNING_RATE, missed_weight: float = 1.0) -> None:
        """Ready the trainer: Adam at `learning_rate`, the objective's loss with a position
        whose first choice is not the teacher's weighing `missed_weight` (`missed_weighted`)."""
        keras = import_keras()
        if self.objective == "ranked":
            loss = value_and_choice(self.view.logit_scale)
        else:
            loss = masked_policy_loss if self.objective == "policy" else masked_mse
        self.missed_weight = missed_weight
        self.trainer().compile(
            optimizer=keras.optimizers.Adam(learning_rate),
            loss=missed_weighted(loss, missed_weight),
        )

    def fit(
        self,
        rel: np.ndarray,
        gains: np.ndarray,
        mask: np.ndarray,
        *,
        epochs: int = 1,
        batch_size: int = 256,
        verbose: int = 0,
        progress: Callable[[str], None] | None = None,
        learning_rate: float | None = None,
        missed_weight: float = 1.0,
        stop: Callable[[], bool] | None = None,
    ) -> float:
        """Fit the outputs to `gains` (the teacher's units, (N, outputs)) where `mask` is
        set (the legal moves), as the view makes its examples of them; the last loss.
        For the "ranked" objective each row is a group of a position's moves (Tak's), and
        `batch_size` and FIT_CHUNK count its moves. More than FIT_CHUNK positions are
        encoded and fitted a slice at a time, in order, so memory stays bounded (shuffle
        them first); a view that augments its examples (Tak's) gets them anew each epoch.
        `progress` gets a line on how far a sliced fit is, every FIT_PROGRESS_SECONDS.
        `learning_rate` sets Adam's (kept from one fit to the next; LEARNING_RATE at first),
        `missed_weight` the weight of a position the network gets wrong (`compile`).
        `stop`, asked after every batch: when it says True the fit ends there."""
        if self.model is None:
            raise ValueError(f"network {self.name} has no weights: call load() or fresh()")
        trainer = self.trainer()
        compiled = getattr(trainer, "optimizer", None) is not None and trainer.compiled
        if not compiled or missed_weight != self.missed_weight:  # a new loss: a new Adam
            kept = float(trainer.optimizer.learning_rate) if compiled else LEARNING_RATE
            self.compile(learning_rate or kept, missed_weight)
        elif learning_rate:
            trainer.optimizer.learning_rate.assign(learning_rate)
        group = gains.shape[1] if self.objective == "ranked" else 1
        options = {"batch_size": max(1, batch_size // group), "verbose": verbose}
        options["callbacks"] = stopping_callbacks(stop)
        chunk = max(1, FIT_CHUNK // group)
        augment = getattr(self.view, "augment", None)
        if len(rel) <= chunk and augment is None:  # one slice: Keras runs the epochs
            history = trainer.fit(*self.examples(rel, gains, mask), epochs=epochs, **options)
        else:
            rng = np.random.default_rng(AUGMENT_SEED)
            shown = time.monotonic()
            for epoch in range(epochs):
                for lo in range(0, len(rel), chunk):
                    if stop is not None and stop():
                        break
                    part = slice(lo, lo + chunk)
                    seen = rel[part] if augment is None else augment(rel[part], rng)
                    x, y = self.examples(seen, gains[part], mask[part])
                    history = trainer.fit(x, y, epochs=1, **options)
                    if progress and time.monotonic() - shown >= FIT_PROGRESS_SECONDS:
                        shown = time.monotonic()
                        done = min(lo + chunk, len(rel))
                        progress(
                            f"epoch {epoch + 1}/{epochs}, {done:,}/{len(rel):,} rows, "
                            f"loss {history.history['loss'][-1]:.4f}"
                        )
        self.forward = NumpyForward(self.model)
        return float(history.history["loss"][-1])

    def examples(
        self, rel: np.ndarray, gains: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(inputs, targets beside their mask) the model is fitted on, of the store's
        (boards, gains, mask)."""
        rel, gains, mask = self.view.examples(rel, gains, mask)
        if self.objective == "policy":
            target = soft_choice(gains, mask, POLICY_TEMPERATURE)
        else:
            target = np.where(mask, self.view.scale(gains), 0.0)
        if self.objective == "ranked":
            choice = soft_choice(gains, mask, self.view.temperature)
            target = np.concatenate([target, choice], axis=1)
        return self.encode(rel), np.concatenate([target, mask], axis=1).astype(np.float32)
