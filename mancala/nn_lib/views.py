"""How the zoo's networks see each game: what goes in, what comes out, how moves are valued.

A view is chosen by the game (`view_for`), so one `Network` class serves every game:

- `SowingView` (Kalah, Sungka): the board from the mover's side in
  (`mancala.games.sowing.view.mover_views`), one number a house out, the seeds the mover
  gains by playing it (outputs are seeds / TARGET_SCALE).
- `AfterstateView` (Kalah and Sungka, for the networks that ask for it): every legal
  move is played on the numba engine (`mancala.games.sowing.afterstates`); the board after
  it, from the side of the player to move then, in; one number out, the seeds that player
  gains from there on. A move that ends the game is worth exactly what it gained.
- `TakView`: a position after a move, as planes from the side of the player who made it
  (`mancala.games.tak.planes`) followed by their feature planes (roads in one, squares
  held, how far groups reach: `mancala.games.tak.features`), in; one number out, its
  value for that player in the teacher's units squashed by tanh(value / TAK_SCALE). A
  position's moves are valued one ply ahead: every legal move is played, a move that
  ends the game gets its exact value (a win WIN_VALUE, a loss its negative, a draw 0)
  and the others the network's. It learns a position's moves together (the objective
  "ranked"): their values, and the teacher's choice among them (softmax of the values /
  TAK_TEMPERATURE) against the softmax of its own. Its examples are seen turned and
  mirrored (`augment`): each time a refit goes over them, each under one of the square's
  eight symmetries drawn at random, which Tak's rules do not see.

Every view turns the store's examples (position, the teacher's value of each legal move,
mask) into its network's (`examples`): the sowing view keeps them, the afterstate view
makes one of each legal move that does not end the game. `board_values` values the moves
of boards already turned to the mover's side.

Each network class names its encoder for each kind of input (`encode` for a sowing board,
`encode_planes` for planes, None where it has none); `encoder` picks it.

>>> from mancala.games.tak import new_tak
>>> view = view_for("tak", {"size": 5, "komi": 0})
>>> view.blank().shape, view.outputs, view.objective
((1, 20, 5, 5), 1, 'ranked')
>>> values, mask = view.move_values(lambda x: np.zeros((len(x), 1)), [new_tak(5)])
>>> values.shape, int(mask.sum())
((1, 3175), 25)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from mancala.game_state import GameState
from mancala.games import GAMES, won_value
from mancala.games.examples import Examples
from mancala.games.masks import legal_mask
from mancala.games.sowing.afterstates import afterstates
from mancala.games.sowing.engine import rules_of
from mancala.games.sowing.view import mover_views
from mancala.games.tak.actions import num_actions
from mancala.games.tak.fast import legal_moves, to_arrays, winner_of
from mancala.games.tak.features import feature_planes
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.planes import SYMMETRIES, afterstate_planes, channels, symmetric
from mancala.nn_lib.encoders import tactics

PREDICT_CHUNK = 512  # Tak: positions after a move valued by one forward pass
TARGET_SCALE = 8.0  # sowing: the model's outputs are seeds gained / TARGET_SCALE
TAK_SCALE = 8.0  # Tak: the model's output is tanh(value / TAK_SCALE)
TAK_TEMPERATURE = 0.5  # Tak: the teacher's choice, a move half a unit worse 1/e as likely
EDGE = 1 - 1e-6  # Tak outputs are clipped inside (-1, 1) before they are turned back

Predict = Callable[[np.ndarray], np.ndarray]  # raw inputs (N, ...) -> values (N, outputs)


class SowingView:
    """Kalah and Sungka: the mover's view in, one value a house out."""

    kind = "sowing"
    encoding = 0  # the inputs' version is the network's own (`Network.ENCODING`)
    objective: str | None = None  # the network's own ("policy" or "values")

    def __init__(self, game: str, options: dict[str, Any]) -> None:
        self.houses = options["houses"]
        self.outputs = self.houses
        self.rules = rules_of(GameState.new(game, **options))

    def encoder(self, net: Any) -> Callable[[np.ndarray], np.ndarray] | None:
        """The network's encoder, followed by each side's next-move tactics
        (`encoders.tactics`) for the networks that ask for them."""
        return partial(with_tactics, net.encode, self.rules) if net.tactics else net.encode

    def blank(self) -> np.ndarray:
        """One empty raw input (for the input shape)."""
        return np.zeros((1, 2 * self.houses + 2), np.int64)

    def scale(self, values: np.ndarray) -> np.ndarray:
        """Teacher's values -> the model's targets."""
        return values / TARGET_SCALE

    def unscale(self, outputs: np.ndarray) -> np.ndarray:
        """The model's outputs -> the teacher's units."""
        return outputs * TARGET_SCALE

    def examples(self, rel: np.ndarray, gains: np.ndarray, mask: np.ndarray) -> Examples:
        """The network's examples of the store's (boards, gains, mask): the same."""
        return Examples(rel, gains, mask)

    def board_values(self, predict: Predict, rel: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The value of each house of boards from the mover's side (N, H)."""
        return predict(rel)

    def move_values(self, predict: Predict, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """(values (N, H), legal mask (N, H))."""
        mask = legal_mask(states)
        return self.board_values(predict, mover_views(states), mask), mask


class AfterstateView(SowingView):
    """Kalah and Sungka one move ahead: each legal move's board in, one value out.

    >>> view = AfterstateView("sungka", {"houses": 7, "seeds": 7})
    >>> start = GameState.new("sungka")
    >>> values, mask = view.move_values(lambda x: np.zeros((len(x), 1)), [start])
    >>> values[0].tolist(), int(mask.sum())     # a network of zeros: what each move gains
    ([1.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0], 7)
    >>> [start.play(move).board[7] for move in range(7)]   # the mover's head after each
    [1, 10, 10, 10, 10, 10, 10]
    """

    objective = "values"

    def __init__(self, game: str, options: dict[str, Any]) -> None:
        super().__init__(game, options)
        self.outputs = 1

    def examples(self, rel: np.ndarray, gains: np.ndarray, mask: np.ndarray) -> Examples:
        """One example a legal move that does not end the game: the board after it (from
        the side of the player to move then) and what that player gains from there on."""
        after, gained, same, live = afterstates(rel, mask, self.rules)
        later = gains - gained
        target = np.where(same, later, -later)[live][:, None]
        return Examples(after[live], target.astype(np.float32), np.ones(target.shape, bool))

    def board_values(self, predict: Predict, rel: np.ndarray, mask: np.ndarray) -> np.ndarray:
        after, gained, same, live = afterstates(rel, mask, self.rules)
        values = gained.astype(np.float64)
        if live.any():
            later = predict(after[live])[:, 0]
            values[live] += np.where(same[live], later, -later)
        return np.where(mask, values, 0.0)


class TakView:
    """Tak: each legal move's resulting position in, its value for the mover out."""

    kind = "planes"
    objective = "ranked"  # each position after a move valued; learnt a position's moves at once
    outputs = 1
    temperature = TAK_TEMPERATURE  # of the teacher's choice among a position's moves
    logit_scale = TAK_SCALE / TAK_TEMPERATURE  # outputs as logits of that choice
    encoding = 4  # the planes and their feature planes, threats a move ahead among them
    # the planes alone (1), without the road moves and threats (2), without the threats
    # (3): such weights read what is added with zero weights
    widens_from = (1, 2, 3)

    def __init__(self, options: dict[str, Any]) -> None:
        self.size = options["size"]
        self.actions = num_actions(self.size)

    def encoder(self, net: Any) -> Callable[[np.ndarray], np.ndarray] | None:
        """The network's encoder of planes, given the planes with their feature planes
        (`mancala.games.tak.features`) after them."""
        return partial(with_features, net.encode_planes) if net.encode_planes else None

    def blank(self) -> np.ndarray:
        return np.zeros((1, channels(self.size), self.size, self.size), np.float32)

    def scale(self, values: np.ndarray) -> np.ndarray:
        return np.tanh(values / TAK_SCALE)

    def unscale(self, outputs: np.ndarray) -> np.ndarray:
        return np.arctanh(np.clip(outputs, -EDGE, EDGE)) * TAK_SCALE

    def examples(self, inputs: np.ndarray, gains: np.ndarray, mask: np.ndarray) -> Examples:
        """The same: the store holds a position's moves already, as the positions after
        them (`games.tak.examples`)."""
        return Examples(inputs, gains, mask)

    def augment(self, inputs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """`inputs` (planes, N x ... x C x S x S), each row under one of the square's
        symmetries drawn from `rng` (its value the same)."""
        drawn = rng.integers(SYMMETRIES, size=len(inputs))
        out = np.empty_like(inputs)
        for symmetry in range(SYMMETRIES):
            chosen = drawn == symmetry
            out[chosen] = symmetric(inputs[chosen], symmetry)
        return out

    def move_values(self, predict: Predict, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """(values (N, actions), legal mask (N, actions)), every move valued one ply ahead,
        played on the numba engine (`planes.afterstate_planes`)."""
        values = np.zeros((len(states), self.actions))
        mask = np.zeros((len(states), self.actions), bool)
        legal = np.empty(self.actions, np.int64)
        stones, caps = PIECES[self.size]
        inputs, rows, moves_going_on = [], [], []
        for row, state in enumerate(states):
            if state.outcome is not None:
                continue
            meta, colours = to_arrays(state)
            moves = legal[: legal_moves(meta, colours, legal)].copy()
            after = np.empty((len(moves), channels(self.size), self.size, self.size), np.float32)
            results = afterstate_planes(meta, colours, moves, stones, caps, after)
            mask[row, moves] = True
            going_on = results < 0
            for move, code in zip(moves[~going_on], results[~going_on]):
                values[row, move] = won_value(winner_of(code), state.player)
            live = moves[going_on]  # their planes are the first len(live) of `after`
            inputs.append(after[: len(live)])
            rows += [row] * len(live)
            moves_going_on.append(live)
        if rows:
            afters = np.concatenate(inputs)
            chunks = range(0, len(afters), PREDICT_CHUNK)  # a few MB at a time: cache-sized
            found = [predict(afters[i : i + PREDICT_CHUNK])[:, 0] for i in chunks]
            values[rows, np.concatenate(moves_going_on)] = np.concatenate(found)
        return values, mask


def each_position(encode: Callable[[np.ndarray], np.ndarray], planes: np.ndarray) -> np.ndarray:
    """`encode` (of planes (N, C, S, S)) of Tak `planes` (..., C, S, S): a batch, or rows
    of a position's moves."""
    encoded = encode(planes.reshape(-1, *planes.shape[-3:]))
    return encoded.reshape(*planes.shape[:-3], *encoded.shape[1:])


def with_features(encode: Callable[[np.ndarray], np.ndarray], planes: np.ndarray) -> np.ndarray:
    """`encode` of Tak `planes` (..., C, S, S) with their feature planes after them."""
    return each_position(
        lambda flat: encode(np.concatenate([flat, feature_planes(flat)], 1)), planes
    )


View = SowingView | AfterstateView | TakView


def with_tactics(
    encode: Callable[[np.ndarray], np.ndarray], rules: tuple[int, bool, bool, int], rel: np.ndarray
) -> np.ndarray:
    """`encode(rel)` with `encoders.tactics(rel, rules)` beside it."""
    return np.concatenate([encode(rel), tactics(rel, rules)], axis=1)


def view_for(game: str, options: dict[str, Any], afterstate: bool = False) -> View:
    """The view of the networks of `game` with rule `options`; on a sowing game, the
    afterstate view for the networks that value boards after a move."""
    if GAMES[game].planes:  # seen as planes (Tak)
        return TakView(options)
    return AfterstateView(game, options) if afterstate else SowingView(game, options)
