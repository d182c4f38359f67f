"""`azx[:simulations]`: az's PUCT search guided by the zoo's afterstate network.

The zoo's `nnxa2h512` values the board after a move, seen by the player to move then
(`mancala.nn_lib.views.AfterstateView`). One position's moves are valued by playing each
on the engine: what the move put in the stores, plus that player's value of the board
after it (minus it when the opponent moves next); a move that ends the game is worth
exactly what it gained. That gives `az`'s search (`mancala.ai.az.puct`) what a
policy-value network gives it:

- the priors: a softmax of the move values in seeds, divided by `TEMPERATURE`;
- the leaf value: the best move's, added to the store difference and squashed as az's
  exact margins are (tanh(margin / VALUE_SCALE)).

Everything else is az's: exact values of finished games, the Kalah endgame database and
proofs, the limits, `azx:t=SECONDS`. A leaf costs a forward pass a legal move (batched
into one matrix product), so it searches fewer simulations a second than az.

Weights: the network's, mancala/models/<game>/nnxa2h512.keras; a game it has no weights
for is refused before a move.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mancala.ai.az import AZ, one_hot_layer
from mancala.game_state import GameState
from mancala.games.sowing import engine
from mancala.nn_lib.policy_value import VALUE_SCALE
from mancala.nn_lib.views import TARGET_SCALE
from mancala.nn_lib.zoo import ZOO, network, trained_games

NETWORK = "nnxa2h512"
TEMPERATURE = 2.0  # seeds: a move this much worse than another gets 1/e of its prior


@njit(cache=True, nogil=True)
def afterstate_leaf(board, player, h, kalah, ec, rl, weights, scratch, priors):
    """A leaf evaluator of `puct`: the afterstate network's value of `board` for `player`
    (to move), the softmax of its move values into `priors`."""
    w1, b1, w2, b2, w3, b3, temperature = weights
    after, first, values, rows, signs = scratch
    own, opp = player * (h + 1) + h, (1 - player) * (h + 1) + h
    before = board[own] - board[opp]
    live = 0
    best = -np.inf
    for m in range(h):
        if board[player * (h + 1) + m] == 0:
            continue
        after[m] = board
        mover = engine.play(after[m], player, m, h, kalah, ec, rl)
        values[m] = after[m, own] - after[m, opp] - before
        if not engine.is_over(after[m], h, kalah):
            one_hot_layer(after[m], mover, h, w1, b1, first[live])
            rows[live] = m
            signs[live] = 1.0 if mover == player else -1.0
            live += 1
    if live:
        hidden = np.maximum(first[:live], np.float32(0.0))
        hidden2 = np.maximum(np.dot(hidden, w2) + b2, np.float32(0.0))
        later = np.dot(hidden2, w3)
        for k in range(live):
            values[rows[k]] += signs[k] * (later[k, 0] + b3[0]) * TARGET_SCALE
    for m in range(h):
        if board[player * (h + 1) + m] > 0:
            best = max(best, values[m])
    total = 0.0
    for m in range(h):
        priors[m] = 0.0
        if board[player * (h + 1) + m] > 0:
            priors[m] = math.exp((values[m] - best) / temperature)
            total += priors[m]
    for m in range(h):
        priors[m] /= total
    return math.tanh((before + best) / VALUE_SCALE)


def kernel_weights(net, temperature: float) -> tuple:
    """The dense layers' (kernel, bias) pairs of a loaded afterstate network as float32
    arrays, and the priors' temperature: the `weights` of `afterstate_leaf`."""
    dense = [weights for kind, _, weights in net.forward.layers if kind == "Dense"]
    arrays = [np.ascontiguousarray(w, dtype=np.float32) for pair in dense for w in pair]
    return (*arrays, float(temperature))


class AZX(AZ):
    """`azx:N` / `azx:t=S`: az's search with the afterstate network `network` (default
    nnxa2h512) as its policy and value; `temperature` (seeds) sets the priors' softmax."""

    def __init__(self, *args, network: str = NETWORK, temperature: float = TEMPERATURE, **kw):
        if not ZOO[network].afterstate:
            raise ValueError(f"azx needs a network that values boards after a move, not {network}")
        if not temperature > 0:
            raise ValueError(f"azx temperature must be positive, not {temperature!r}")
        self.network, self.temperature = network, temperature
        super().__init__(*args, **kw)

    def load_networks(self, path, game: str, net) -> dict:
        if net is None and path is not None:
            net = network(self.network, path, game).load()
        if net is not None:
            return {net.variant: net}
        games = [g["variant"] for g in trained_games(self.network)] or ["kalah"]
        return {g: network(self.network, game=g).load() for g in games}

    def net_for(self, state: GameState):
        net = self.networks.get(state.game)
        if net is None:
            raise ValueError(
                f"azx has no {self.network} weights for {state.game}; make them with "
                f"`python mancala/random_train.py --variant {state.game} {self.network}`"
            )
        net.check_state(state)
        return net

    def evaluator(self, state: GameState) -> tuple:
        net = self.net_for(state)
        key = id(net.forward)
        if key not in self._kernel_weights:
            self._kernel_weights = {key: kernel_weights(net, self.temperature)}
        weights = self._kernel_weights[key]
        h = state.houses
        scratch = (
            np.empty((h, 2 * h + 2), np.int64),
            np.empty((h, weights[1].shape[0]), np.float32),
            np.zeros(h),
            np.empty(h, np.int64),
            np.empty(h),
        )
        return afterstate_leaf, weights, scratch
