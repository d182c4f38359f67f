"""The generic searches (mancala/ai/search_generic.py) and the players of Tak: the generic
alpha-beta agrees with the numba minimax on Kalah and Sungka, the searches see a road in
one and block the opponent's, they keep to their deadline, and the registry offers each
player only for the games it can play."""

from __future__ import annotations

import random

import pytest

from mancala.ai import make_player
from mancala.ai.limits import Limits
from mancala.ai.minimax import Minimax
from mancala.ai.registry import check_can_play, players_for, tournament_players
from mancala.ai.search_generic import UCT, AlphaBeta, OnePly
from mancala.arena.match import play_games
from mancala.arena.openings import random_opening
from mancala.game_state import GameState
from mancala.games import new_game
from mancala.games.tak import from_tps
from mancala.nn_lib.base import weights_path

# White has a1..d1: e1 makes a road. With white to move it wins now; with black to move,
# every move but one on e1 lets white win.
ROAD_IN_ONE = "2,2,2,x2/x5/x5/x5/1,1,1,1,x 1 5"
BLOCK_IT = "2,2,2,x2/x5/x5/x5/1,1,1,1,x 2 5"


def random_position(rng: random.Random) -> GameState:
    variant = rng.choice(["kalah", "sungka"])
    state = GameState.new(variant, houses=rng.choice([3, 4, 6]), seeds=rng.choice([2, 3, 4]))
    for _ in range(rng.randrange(12)):
        if state.is_over():
            break
        state = state.play(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_generic_alpha_beta_equals_the_numba_minimax_on_sowing_games(depth):
    rng, compared = random.Random(depth), 0
    while compared < 25:
        state = random_position(rng)
        if state.is_over():
            continue
        fast = Minimax(depth=depth).evaluate(state)
        generic = AlphaBeta(depth=depth).evaluate(state)  # the game's evaluator: store lead
        assert generic["moves"] == fast["moves"], state
        assert generic["depth"] == depth
        compared += 1


def test_generic_alpha_beta_chooses_a_best_move_of_the_numba_minimax():
    rng = random.Random(7)
    for _ in range(20):
        state = random_position(rng)
        if state.is_over():
            continue
        values = Minimax(depth=3).evaluate(state)["moves"]
        assert values[AlphaBeta(seed=1, depth=3).choose_move(state)] == max(values.values())


@pytest.mark.parametrize("spec", ["greedy", "minimax:1", "minimax:2", "minimax:3", "mcts:300"])
def test_a_road_in_one_is_found(spec):
    state = from_tps(ROAD_IN_ONE)
    move = make_player(spec, seed=2).choose_move(state)
    assert state.play(move).winner() == 0, state.move_name(move)


@pytest.mark.parametrize("spec", ["minimax:2", "minimax:3"])
def test_the_opponents_road_in_one_is_blocked(spec):
    state = from_tps(BLOCK_IT)
    move = make_player(spec, seed=2).choose_move(state)
    assert state.move_name(move).lstrip("SC") == "e1"
    after = state.play(move)
    assert all(after.play(m).winner() != 0 for m in after.legal_moves())


@pytest.mark.slow
def test_alpha_beta_values_a_sooner_win_higher():
    values = AlphaBeta(depth=3).evaluate(from_tps(ROAD_IN_ONE))["moves"]
    wins = [v for v in values.values() if v > 1000]
    assert max(values.values()) == max(wins) and len(set(wins)) > 1  # in 1 above in 3


def test_one_ply_sees_the_win_and_the_evaluator_otherwise():
    state = from_tps(ROAD_IN_ONE)
    values = OnePly().move_values(state)
    assert {state.move_name(m) for m, v in values.items() if v == max(values.values())} == {
        "e1",
        "Ce1",
    }


@pytest.mark.parametrize(
    "player",
    [AlphaBeta(seed=1, depth=50, limits=Limits(seconds=0.3)), UCT(seed=1, simulations=10**7)],
)
def test_the_generic_searches_keep_to_the_deadline_on_tak(player):
    player.limits = Limits(seconds=0.3)
    state, _ = random_opening(new_game("tak", size=6), 10, random.Random(3))
    assert player.choose_move(state) in state.legal_moves()
    if isinstance(player, AlphaBeta):
        assert 1 <= player.reached < 50  # the deepest depth it finished by its deadline
    else:
        assert 0 < sum(player.evaluate(state)["visits"].values()) < 10**7


def test_generic_uct_reads_the_player_to_move_after_extra_turns():
    """Sungka and Kalah give extra turns; UCT through the protocol must still prefer a
    move the numba minimax proves wins the most seeds on a small board."""
    state = GameState.new(houses=3, seeds=2)
    best = Minimax(depth=20).evaluate(state)["moves"]
    chosen = UCT(seed=4, simulations=3000).choose_move(state)
    assert best[chosen] == max(best.values())


def test_the_registry_offers_each_player_only_where_it_plays():
    tak = new_game("tak")
    offered = set(players_for(tak))
    assert {"luck", "greedy", "weighted", "minimax", "mcts"} <= offered
    assert not offered & {"max", "exact", "nmcts", "solver", "nnx2h256", "nns1h128", "dqn"}
    assert ("nn1h128" in offered) == weights_path("nn1h128", "tak").is_file()  # a Tak network
    assert "weighted" not in players_for(GameState.new())
    names = {spec.partition(":")[0] for spec in tournament_players("tak")}
    assert {"luck", "greedy", "weighted", "minimax", "mcts"} <= names
    with pytest.raises(ValueError, match=r"max cannot play tak\(size=5, komi=0\); players that"):
        check_can_play(["max"], tak)


@pytest.mark.parametrize("spec", ["luck", "weighted", "greedy", "minimax:1", "mcts:20"])
def test_tak_players_play_legal_moves_to_the_end(spec):
    rng = random.Random(1)
    start = new_game("tak", size=4)
    state, opening = random_opening(start, 2, rng)

    def check(_game, state, move):
        assert move in state.legal_moves(), (spec, state.move_name(move))

    players = [make_player(spec, seed=1), make_player("luck", seed=2)]
    for seats in (players, players[::-1]):
        [record] = play_games(seats, [state], openings=[opening], on_move=check)
        assert record["winner"] in (0, 1, None) and record["variant"] == "tak"
