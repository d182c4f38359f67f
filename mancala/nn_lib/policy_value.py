"""AlphaZero-style policy-value networks, one per board: mancala/models/<board>/az-net.keras
(the board's name is its game's for the default board, `mancala.nn_lib.boards`).

The game decides the input and the policy's width (`input_width`, `policy_width`): on
Kalah and Sungka the one-hot encoding of the position from the mover's side
(`encoders.one_hot`) and one logit per house; on Tak its planes from the mover's side
(`mancala.games.tak.planes`, flattened) followed by their feature planes (roads in one,
squares held, groups' reach, `mancala.games.tak.features`; weights saved before them,
of input encoding 1, read the planes alone) and one logit per action id (3,175 on 5x5). Then
two dense hidden layers of HIDDEN units (relu) and two heads: `policy` (whoever reads it
masks the illegal moves) and `value` (tanh), the expected outcome for the player to
move (win 1, draw 0, loss -1). Keras builds, fits and saves the model; searches read its
weights as float32 arrays (`PolicyValue.arrays`) and run the forward pass in numba
(each game's kernel adapter: `mancala.games.sowing.kernel`, `mancala.games.tak.kernel`).

Targets come from two kinds of records (`teacher_targets` on the sowing games,
`searched_targets` on Tak; `mancala.learn.data.visit_targets`): a teacher's values of
every legal move (the policy: a sharp softmax of them; the value: the best move's final
margin m squashed as `mancala.games.sowing.margin_value` says, tanh(m / value_scale) plus
a score utility weighted by score_weight, or on Tak tanh of the best value in flats), or
a search's visit counts (the policy: the counts normalised)
and the game's outcome for the mover (the value: the final margin squashed alike on the
sowing games, the result on Tak). A network's `value_scale` (seeds) and `score_weight`
are written in its metadata; its searches read exact margins on the same scale.

A game may offer a guide in place of a network (`Game.guide`: on Tak, a policy and a value
linear in its evaluation's features, `mancala.games.tak.guide`); where one ships for a
board, `shipped_guide` gives it in a network's face (`Guide`), which az plays there."""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np

from mancala.core.paths import MODELS_DIR
from mancala.game_state import GameState
from mancala.games import (
    DEFAULT_GAME,
    GAMES,
    Capability,
    describe,
    example_builders,
    feature_planes,
    new_game,
    offers,
)
from mancala.games import game as game_entry
from mancala.games import planes as planes_of
from mancala.games.examples import Examples
from mancala.games.masks import legal_mask
from mancala.games.sowing.margin_value import margin_of, margin_value
from mancala.games.sowing.view import mover_views
from mancala.nn_lib import encoders
from mancala.nn_lib.base import LEARNING_RATE, weights_path
from mancala.nn_lib.boards import (
    DEFAULT_BOARDS,
    board_flags,
    board_name,
    board_rules,
    file_rules,
    trained_boards,
)
from mancala.nn_lib.choice import soft_choice
from mancala.nn_lib.keras_io import batches, import_keras, stopping_callbacks
from mancala.nn_lib.losses import masked_policy_loss
from mancala.nn_lib.meta import read_number
from mancala.nn_lib.saved import SavedModel, WeightsError

NAME = "az-net"
HIDDEN = 256
MOST_VALUE = 0.999  # a value is cut to this before it is turned into seeds: 3.8 scales at most
# seeds: a network of a sowing game learns the value tanh(final margin m / its value scale);
# this one unless its run says otherwise (`mancala selfplay --value-scale`), and files saved
# before the scale was written down used it
VALUE_SCALE = 2.0
# the policy target's temperature (seeds): a move one seed worse than the best gets 1/e its
# weight, whatever the value's scale (a wide scale is for the value, not softer priors)
POLICY_TEMPERATURE = 1.0
AZ_GAMES = DEFAULT_BOARDS  # the games' default boards
PLANES_ONLY, WITH_FEATURES = 1, 2  # the input encodings of a game of planes


def weights_file(
    game: str, models: str | os.PathLike | None = None, options: dict[str, Any] | None = None
) -> Path:
    """Where the policy-value weights of a board of `game` (its default board unless
    `options` say otherwise) live, in `models` (else MODELS_DIR)."""
    return weights_path(NAME, board_name(game, options), Path(models or MODELS_DIR))


def make_command(game: str, options: dict[str, Any] | None = None) -> str:
    """The command that makes the weights of a board of `game` (see docs/az.md)."""
    flags = board_flags(game, options)
    if game_entry(game).search:  # its teacher is its own alpha-beta, run by the command
        return (
            f"mancala selfplay --variant {game}{flags} --teacher-games 1000 --epochs 8 --rounds 0"
        )
    if flags:  # another board of a sowing game: from a network of the default board
        return f"mancala selfplay --variant {game}{flags} --init {weights_file(game)} --run NAME"
    return f"mancala selfplay --variant {game} --from runs/NAME/games.jsonl"


def game_text(game: str, options: dict[str, Any] | None = None) -> str:
    """The game of a board and its rules: 'kalah(6,4)', 'tak(size=5, komi=0)'."""
    return describe(new_game(game, **board_rules(game, options)))


def trained_games(**_player: Any) -> list[dict[str, Any]]:
    """The rules (variant and options) of each board that has weights in MODELS_DIR or a
    shipped guide (for any player's options: every policy-value player reads the same)."""
    found = trained_boards(f"{NAME}.keras", MODELS_DIR)
    for game in AZ_GAMES:
        module = game_entry(game).guide
        for options in import_module(module).guided_boards(MODELS_DIR) if module else []:
            board = {"variant": game, **board_rules(game, options)}
            found += [board] if board not in found else []
    return found


class Guide:
    """A game's shipped guide (`Game.guide`) in the face of a network, for az: its weights
    (`arrays`, as the kernel adapter reads them) and board."""

    value_scale = 1.0  # a guide's value scale is in its weights
    score_weight = 0.0
    margins = False  # its value is a win's, not a margin's

    def __init__(self, game: str, options: dict[str, Any], weights: Any) -> None:
        self.game, self.options, self.arrays = game, board_rules(game, options), weights

    @property
    def board(self) -> str:
        return board_name(self.game, self.options)

    def load(self) -> Guide:
        return self

    def check_state(self, state: GameState) -> None:
        """ValueError unless `state` is of the board this guide is for."""
        check_board(self.game, self.options, state)


def shipped_guide(game: str, options: dict[str, Any] | None = None) -> Guide | None:
    """The shipped guide (in MODELS_DIR) of a board of `game` (its default board unless
    `options` say otherwise), else None."""
    module = game_entry(game).guide
    if module is None:
        return None
    rules = board_rules(game, options)
    weights = import_module(module).shipped_guide(rules, MODELS_DIR)
    return None if weights is None else Guide(game, rules, weights)


def guide_from_file(path: str | os.PathLike) -> Guide | None:
    """The guide in the file `path` (named as guides ship, of a game with a guide), or
    None for a file of no such name; ValueError when such a file holds no guide."""
    for entry in GAMES.values():
        found = entry.guide and import_module(entry.guide).read_guide_file(Path(path))
        if found:
            return Guide(entry.name, *found)
    return None


def check_board(game: str, options: dict[str, Any], state: GameState) -> None:
    """ValueError unless `state` is of the board of `game` with the rules `options`."""
    found = getattr(state, "options", {})
    if state.game != game or any(found.get(k) != v for k, v in options.items()):
        raise ValueError(
            f"{NAME} was trained for {game_text(game, options)}, not {describe(state)}"
        )


def has_weights(**_player: Any) -> bool:
    """True when some board has shipped policy-value weights (for any player's options)."""
    return bool(trained_games())


def input_width(
    game: str, options: dict[str, Any] | None = None, encoding: int | None = None
) -> int:
    """The network input's width for a board of `game`, in input `encoding` (its
    newest by default)."""
    rules = board_rules(game, options)
    if game_entry(game).planes:
        return int(encode(game, features([new_game(game, **rules)]), rules, encoding).shape[1])
    return 2 * rules["houses"] * encoders.ONE_HOT_BINS + 2


def newest_encoding(game: str) -> int:
    """The input encoding a new network of `game` reads: PLANES_ONLY or WITH_FEATURES on
    a game of planes (WITH_FEATURES where it has feature planes), 1 on the others."""
    return WITH_FEATURES if game_entry(game).features else PLANES_ONLY


def policy_width(game: str, options: dict[str, Any] | None = None) -> int:
    """One logit per move of a board of `game`: a house, or a Tak action id."""
    return new_game(game, **board_rules(game, options)).num_actions


def features(states: list) -> np.ndarray:
    """The compact inputs of positions of one game, each from its mover's side: the
    sowing boards (`mover_views`, int16; `encode` makes them one-hot), or Tak's planes
    flattened (float32, the input itself)."""
    seen = planes_of(states[0].game)
    if seen:
        return np.stack([seen(s, s.player).ravel() for s in states])
    return mover_views(states).astype(np.int16)


def encode(
    game: str,
    compact: np.ndarray,
    options: dict[str, Any] | None = None,
    encoding: int | None = None,
) -> np.ndarray:
    """The network input of `features`' rows of a board of `game` in input `encoding`
    (the game's newest by default): the one-hot boards; the planes; or the planes and
    their feature planes."""
    if not game_entry(game).planes:
        return encoders.one_hot(compact)
    if (encoding or newest_encoding(game)) == PLANES_ONLY:
        return compact
    shape = planes_of(game)(new_game(game, **board_rules(game, options)), 0).shape
    extra = feature_planes(game)(compact.reshape(len(compact), *shape))
    return np.concatenate([compact, extra.reshape(len(compact), -1)], axis=1)


class PolicyValue(SavedModel):
    """The policy-value network of `game` (weights at `path`, the shipped file by default).

    `load()` raises WeightsError naming the file and the command that makes it.
    """

    ENCODING = 1  # raised when the inputs change; a game of planes has its own (`encode`)

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        path: str | os.PathLike | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.game, self.options = game, board_rules(game, options)
        self.path = Path(path) if path is not None else weights_file(game, None, self.options)
        self.model: Any = None
        self.arrays: tuple[np.ndarray, ...] = ()
        self.value_scale = VALUE_SCALE  # seeds (the sowing games); unused on Tak
        self.score_weight = 0.0  # the score utility's share of the value (`margin_value`)
        self.ENCODING = newest_encoding(game)

    @property
    def margins(self) -> bool:
        """Whether the game ends with a margin in seeds (sowing): the value scale's unit."""
        return offers(self.game, Capability.MARGIN)

    def seeds(self, value: float, most: float = MOST_VALUE) -> float:
        """The final margin in seeds that the value `value` (-1..1) stands for, the inverse
        of the value target (`margin_of`), the value cut to ±`most` first."""
        return margin_of(value, self.value_scale, self.score_weight, most)

    @property
    def moves(self) -> int:
        """The policy's width: houses, or Tak action ids."""
        return policy_width(self.game, self.options)

    def build(self) -> Any:
        keras = import_keras()
        inputs = keras.Input((input_width(self.game, self.options, self.ENCODING),))
        x = keras.layers.Dense(HIDDEN, activation="relu", name="hidden1")(inputs)
        x = keras.layers.Dense(HIDDEN, activation="relu", name="hidden2")(x)
        outputs = {
            "policy": keras.layers.Dense(self.moves, name="policy")(x),
            "value": keras.layers.Dense(1, activation="tanh", name="value")(x),
        }
        return keras.Model(inputs, outputs, name=f"az-net-{self.game}")

    @property
    def board(self) -> str:
        """The board's name: its game's for the default board, else 'kalah-seeds5' and so on."""
        return board_name(self.game, self.options)

    @property
    def label(self) -> str:
        return f"{NAME} ({self.board})"

    def make(self) -> str:
        return f"make it with `{make_command(self.game, self.options)}`"

    def _adopt(self, model: Any, make: str) -> None:
        scale = read_number(self.path, "value_scale", VALUE_SCALE)
        if scale is None or not 0 < scale < 1000:
            raise WeightsError(
                f"{self.label}: the value_scale of {self.path} is not a number of seeds"
            )
        weight = read_number(self.path, "score_weight", 0.0)
        if weight is None or not 0 <= weight < 1:
            raise WeightsError(f"{self.label}: the score_weight of {self.path} is not in 0..1")
        try:
            self._use(model)
        except Exception as error:  # another Keras model: its layers are not these
            raise WeightsError(
                f"{self.label}: {self.path} is not a policy-value network ({error}); {make}"
            ) from None
        got = (self.arrays[0].shape[0], self.arrays[4].shape[1])
        want = (input_width(self.game, self.options, self.ENCODING), self.moves)
        text = game_text(self.game, self.options)
        if got != want:
            raise WeightsError(
                f"{self.label}: {self.path} maps {got[0]} inputs to {got[1]} moves, "
                f"but {text} needs {want[0]} -> {want[1]}; {make}"
            )
        self._check_board()
        self.value_scale, self.score_weight = float(scale), float(weight)

    def _check_board(self) -> None:
        """WeightsError unless the file's metadata names this network's board."""
        rules = file_rules(self.path) or {"variant": self.game, **AZ_GAMES[self.game]}
        if rules != {"variant": self.game, **self.options}:
            board = game_text(rules["variant"], rules)
            text = game_text(self.game, self.options)
            raise WeightsError(f"{self.label}: {self.path} was trained for {board}, not {text}")

    def _upgrade(self, model: Any, found: int, make: str) -> Any:
        """Weights of a game of planes saved before its feature planes read the planes
        alone, as they did: this network then encodes its inputs as they were."""
        if game_entry(self.game).planes and found == PLANES_ONLY:
            self.ENCODING = PLANES_ONLY
            return model
        self._check_board()  # another game's weights: say so, not their encoding
        return super()._upgrade(model, found, make)

    def encode(self, compact: np.ndarray) -> np.ndarray:
        """The input of `features`' rows as this network reads them."""
        return encode(self.game, compact, self.options, self.ENCODING)

    def _use(self, model: Any) -> None:
        self.model = model
        layers = [model.get_layer(name) for name in ("hidden1", "hidden2", "policy", "value")]
        weights = [w for layer in layers for w in layer.get_weights()]
        weights[6] = weights[6][:, 0]  # the value head's kernel as a vector
        self.arrays = tuple(np.ascontiguousarray(w, dtype=np.float32) for w in weights)

    def _metadata(self) -> dict[str, Any]:
        rules = {"rules": {"variant": self.game, **self.options}}
        if not self.margins:
            return rules
        return {"value_scale": self.value_scale, "score_weight": self.score_weight, **rules}

    def check_state(self, state: GameState) -> None:
        """ValueError unless `state` is the game this network was built for."""
        check_board(self.game, self.options, state)

    def predict(self, compact: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keras's (policy logits (N, moves), values (N,)) for `features` rows."""
        out = self.model.predict_on_batch(self.encode(compact))
        return np.asarray(out["policy"]), np.asarray(out["value"])[:, 0]

    def fit(
        self,
        data: Examples,
        *,
        epochs: int = 1,
        batch_size: int = 256,
        learning_rate: float | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> float:
        """Fit both heads to `data` (features, policy, mask, value); the last epoch's loss.
        The model is compiled at its first fit, with Adam at `learning_rate`
        (LEARNING_RATE if None), and Adam's state is kept from one fit to the next; a
        later fit given a `learning_rate` sets Adam's rate to it. The examples are encoded
        a batch at a time, in a new random order each epoch. `stop`, asked after every
        batch: when it says True the fit ends there."""
        keras = import_keras()
        if not getattr(self.model, "compiled", False):
            self.model.compile(
                optimizer=keras.optimizers.Adam(learning_rate or LEARNING_RATE),
                loss={"policy": masked_policy_loss, "value": "mse"},
            )
        elif learning_rate is not None:
            self.model.optimizer.learning_rate.assign(learning_rate)
        compact, policy, mask, value = data

        def batch(rows: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
            targets = np.concatenate([policy[rows], mask[rows]], axis=1).astype(np.float32)
            outcome = value[rows].astype(np.float32)[:, None]
            return self.encode(compact[rows]), {"policy": targets, "value": outcome}

        examples = batches(len(compact), batch, batch_size, seed=len(compact))
        history = self.model.fit(
            examples, epochs=epochs, verbose=0, callbacks=stopping_callbacks(stop)
        )
        self._use(self.model)
        return float(history.history["loss"][-1])


def teacher_targets(
    rel: np.ndarray,
    gains: np.ndarray,
    mask: np.ndarray,
    value_scale: float,
    score_weight: float = 0.0,
) -> Examples:
    """Targets from a teacher's move values (`mancala.learn.data.record_positions`), the
    value on the scale `value_scale` (seeds) with the score utility's `score_weight`
    (`margin_value`), the policy a soft choice at a temperature of POLICY_TEMPERATURE
    seeds."""
    h = mask.shape[1]
    policy = soft_choice(gains, mask, POLICY_TEMPERATURE)
    margin = np.where(mask, gains, -np.inf).max(axis=1) + (rel[:, h] - rel[:, 2 * h + 1])
    value = margin_value(margin, value_scale, score_weight)
    return Examples(rel, policy.astype(np.float32), mask, value)


# a search's values of moves on the games without margins, in its evaluator's units (Tak: flats)
SEARCH_CLIP = 10.0  # a won or lost position's value is cut to this first
SEARCH_TEMPERATURE = 1.0  # a move one unit worse than the best gets 1/e its weight
SEARCH_VALUE_SCALE = 3.0  # the best value v of a position becomes tanh(v / this)


def searched_targets(states: list[GameState], rows: list[list[float]]) -> Examples:
    """Targets of positions `states` of a game without margins (Tak) from a search's
    values of each one's legal moves (`rows`, in the order of `legal_moves`): the policy
    their soft choice at SEARCH_TEMPERATURE, the value the best v as tanh(v /
    SEARCH_VALUE_SCALE), both after cutting the values to SEARCH_CLIP. ValueError when a
    row does not fit."""
    return Examples(features(states), *searched_choice(states, rows))


def searched_choice(states: list[GameState], rows: list[list[float]]) -> tuple[np.ndarray, ...]:
    """(policy, mask, value) of `searched_targets`, without the positions' inputs."""
    mask = legal_mask(states)
    try:
        gains = np.clip(dense_rows(states, rows, mask), -SEARCH_CLIP, SEARCH_CLIP)
    except (TypeError, ValueError):
        raise ValueError("values are not one number a legal move") from None
    policy = soft_choice(gains, mask, SEARCH_TEMPERATURE).astype(np.float32)
    best = np.where(mask, gains, -np.inf).max(axis=1)
    return policy, mask, np.tanh(best / SEARCH_VALUE_SCALE)


def dense_rows(states: list, rows: list, mask: np.ndarray) -> np.ndarray:
    """A record's rows of `states` (visits, a policy, a search's values: the layout of
    `mancala.learn.data.visit_row`) as numbers one per action id, 0 where illegal (`mask`:
    `legal_mask`); ValueError when they do not fit the positions."""
    if example_builders(states[0].game).DENSE_ROWS:
        dense = np.array(rows, dtype=np.float64)
        if dense.shape != mask.shape or (dense[~mask] != 0).any():
            raise ValueError("rows do not fit the legal moves")
        return dense
    dense = np.zeros(mask.shape)
    for row, (state, seen) in enumerate(zip(states, rows)):
        legal = state.legal_moves()
        if not isinstance(seen, list) or len(seen) != len(legal):
            raise ValueError("rows do not fit the legal moves")
        dense[row, legal] = seen
    return dense
