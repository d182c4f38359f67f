"""`azx`: az's search guided by the afterstate network. Its leaf equals the network's own
move values, one simulation plays the network's move, and it refuses what it cannot play."""

import math
import random

import numpy as np
import pytest

from mancala.ai.az_afterstate import AZX, TEMPERATURE, afterstate_leaf
from mancala.ai.registry import can_play, make_player
from mancala.arena.match import play_game
from mancala.game_state import GameState
from mancala.games.sowing import engine
from mancala.nn_lib.policy_value import VALUE_SCALE
from mancala.nn_lib.zoo import network

GAMES = ("kalah", "sungka")


@pytest.fixture(scope="module")
def nets():
    """An untrained afterstate network of each game (seeded: its values differ by move)."""
    return {game: network("nnxa2h512", game=game).fresh(seed=2) for game in GAMES}


def positions(game: str, count: int, seed: int) -> list[GameState]:
    rng = random.Random(seed)
    found: list[GameState] = []
    while len(found) < count:
        state = GameState.new(game)
        while not state.is_over() and len(found) < count:
            found.append(state)
            state = state.play(rng.choice(state.legal_moves()))
    return found


def searcher(net, **kw) -> AZX:
    return AZX(seed=0, net=net, game=net.variant, endgame=False, prove=False, **kw)


@pytest.mark.parametrize("game", GAMES)
def test_the_leaf_equals_the_networks_move_values(nets, game):
    player = searcher(nets[game], simulations=1)
    states = positions(game, 150, seed=4)
    values, mask = nets[game].move_values(states)
    for state, row, legal in zip(states, values, mask):
        board, mover, (h, kalah, ec, rl) = engine.to_arrays(state)
        leaf, weights, scratch = player.evaluator(state)
        assert leaf is afterstate_leaf
        priors = np.full(h, -1.0)
        value = leaf(board, mover, h, kalah, ec, rl, weights, scratch, priors)
        best = row[legal].max()
        lead = state.board[state.store(state.player)] - state.board[state.store(1 - state.player)]
        assert value == pytest.approx(math.tanh((lead + best) / VALUE_SCALE), abs=1e-4)
        want = np.where(legal, np.exp((row - best) / TEMPERATURE), 0.0)
        np.testing.assert_allclose(priors, want / want.sum(), atol=1e-4)


@pytest.mark.parametrize("game", GAMES)
def test_one_simulation_plays_the_networks_move(nets, game):
    player = searcher(nets[game], simulations=1)
    for state in positions(game, 60, seed=5):
        values, mask = nets[game].move_values([state])
        assert player.choose_move(state) == int(np.argmax(np.where(mask[0], values[0], -np.inf)))


def test_a_search_plays_a_whole_game(nets):
    player = searcher(nets["sungka"], simulations=200)
    record = play_game([player, make_player("luck", seed=1)], GameState.new("sungka"))
    assert record["scores"][0] + record["scores"][1] == 98


def test_refusals(nets):
    with pytest.raises(ValueError, match="values boards after a move"):
        AZX(network="nnx2h256", net=nets["kalah"], game="kalah")
    with pytest.raises(ValueError, match="temperature"):
        AZX(net=nets["kalah"], game="kalah", temperature=0)
    player = searcher(nets["kalah"], simulations=10)
    with pytest.raises(ValueError, match="no nnxa2h512 weights for sungka"):
        player.choose_move(GameState.new("sungka"))
    assert not can_play("azx", GameState.new("kalah", houses=5))
