"""The Gymnasium and PettingZoo environments: conformance kits, rewards, bad actions."""

from __future__ import annotations

import random

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from mancala.games import new_game
from mancala.games.tak.planes import planes
from mancala.learn.envs import MancalaEnv, env, raw_env

VARIANTS = ("sungka", "kalah")
GAMES = (("sungka", {}), ("kalah", {}), ("tak", {"size": 3}), ("tak", {"size": 5}))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seat, opponent", [(0, "luck"), (1, "max")])
def test_gymnasium_env_checker(variant, seat, opponent):
    # check_env samples actions without the mask: max leaves every house of the second
    # seat filled after its opening moves, so the sampled action is legal.
    check_env(MancalaEnv(variant, opponent=opponent, seat=seat), skip_render_check=True)


@pytest.mark.parametrize("seat", [0, 1])
def test_gymnasium_env_checker_on_tak(seat):
    # check_env samples actions without the mask: with illegal="lose" an illegal one
    # ends the game, as PettingZoo's TerminateIllegalWrapper does.
    check_env(MancalaEnv("tak", "luck", seat, illegal="lose", size=4), skip_render_check=True)


@pytest.mark.parametrize("variant, options", GAMES)
@pytest.mark.parametrize("make", [env, raw_env])
def test_pettingzoo_api_test(variant, options, make):
    api_test(make(variant, **options), num_cycles=200)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seat", [0, 1])
def test_gym_rewards_add_up_to_the_final_score_difference(variant, seat):
    rng = random.Random(seat)
    game = MancalaEnv(variant, opponent="greedy", seat=seat)
    for episode in range(5):
        obs, info = game.reset(seed=episode)
        h = game.state.houses
        opening = obs[h] - obs[2 * h + 1]  # what the opponent gained before our first move
        total, done = 0.0, False
        while not done:
            assert obs.shape == game.observation_space.shape
            assert game.state.player == seat
            mask = info["action_mask"]
            assert mask.tolist() == [int(m in game.state.legal_moves()) for m in range(len(mask))]
            obs, reward, done, truncated, info = game.step(rng.choice(np.flatnonzero(mask)))
            total += reward
            assert not truncated
        mine, theirs = game.state.scores()[seat], game.state.scores()[1 - seat]
        assert total == mine - theirs - opening
        assert obs[h] == mine  # the agent's own store comes first


def test_gym_bad_actions_raise_clear_errors():
    game = MancalaEnv("kalah", opponent="luck")
    with pytest.raises(ValueError, match="reset"):
        game.step(0)
    game.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        game.step(6)
    game.step(0)  # house 0 is now empty (whatever the opponent did)
    with pytest.raises(ValueError, match="illegal action 0: house 0 of player 0 is empty"):
        game.step(0)
    while not game.state.is_over():
        game.step(int(np.flatnonzero(game._info()["action_mask"])[0]))
    with pytest.raises(ValueError, match="the game is over"):
        game.step(0)
    with pytest.raises(ValueError, match="seat must be 0"):
        MancalaEnv(seat=2)
    with pytest.raises(ValueError, match="unknown reset option"):
        game.reset(options={"colour": "red"})
    with pytest.raises(ValueError, match="unknown player"):
        game.reset(options={"opponent": "nobody"})


def test_reset_can_start_after_random_first_moves():
    from mancala.game_state import GameState

    game = MancalaEnv("kalah", opponent="luck", seat=0)
    starts = set()
    for seed in range(20):
        game.reset(seed=seed, options={"opening": 2})
        assert not game.state.is_over() and game.state.player == 0
        starts.add(game.state.board)
    assert len(starts) > 3 and GameState.new().board not in starts
    game.reset(seed=0, options={"opening": 2})
    again = game.state
    game.reset(seed=0, options={"opening": 2})
    assert game.state == again  # seeded
    game.reset(seed=1)
    assert game.state == GameState.new()  # no opening asked: the start
    with pytest.raises(ValueError, match="the opening is a number of moves >= 0, not -1"):
        game.reset(options={"opening": -1})
    tiny = MancalaEnv("kalah", opponent="luck", houses=1, seeds=1)
    with pytest.raises(ValueError, match="every opening of 10 random moves tried ended the game"):
        tiny.reset(seed=0, options={"opening": 10})


def test_aec_extra_turn_keeps_the_same_agent_and_illegal_moves_raise():
    aec = raw_env("sungka")
    aec.reset()
    assert aec.agent_selection == "player_0"
    aec.step(0)  # 7 shells from house 0: the last lands in the head, move again
    assert aec.agent_selection == "player_0"
    assert aec.observe("player_1")["action_mask"].sum() == 0
    with pytest.raises(ValueError, match="illegal action 0 by player_0: house 0"):
        aec.step(0)


@pytest.mark.parametrize("variant, options", GAMES)
def test_aec_follows_the_rules_to_the_end(variant, options):
    rng = random.Random(3)
    aec = raw_env(variant, **options)
    aec.reset(seed=3)
    state = new_game(variant, **options)
    final = {}
    for agent in aec.agent_iter():
        observation, reward, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            final[agent] = reward
            aec.step(None)
            continue
        assert reward == 0  # rewards come at the end
        assert aec.possible_agents.index(agent) == state.player
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        assert legal == state.legal_moves()
        move = rng.choice(legal)
        state = state.play(move)
        aec.step(move)
    assert state.is_over()
    expected = {0: (1, -1), 1: (-1, 1), None: (0, 0)}[state.winner()]
    assert (final["player_0"], final["player_1"]) == expected


def test_wrapped_aec_ends_the_game_on_an_illegal_move():
    aec = env("kalah")
    aec.reset(seed=0)
    aec.step(0)  # player 0 sows house 0 into houses 1..4: player 1 to move
    aec.step(0)  # the same for player 1: player 0 to move, its house 0 is empty
    aec.step(0)  # illegal: PettingZoo's convention ends the game, -1 to the offender
    assert all(aec.terminations.values())
    assert aec.last()[1] == -1


@pytest.mark.parametrize("seat", [0, 1])
def test_tak_gym_game_pays_the_result_at_the_end(seat):
    rng = random.Random(seat)
    game = MancalaEnv("tak", opponent="greedy", seat=seat, size=4)
    obs, info = game.reset(seed=seat)
    done, rewards = False, []
    while not done:
        assert game.observation_space.contains(obs)
        assert np.array_equal(obs, planes(game.state, seat))
        legal = np.flatnonzero(info["action_mask"]).tolist()
        assert legal == game.state.legal_moves() and game.state.player == seat
        obs, reward, done, truncated, info = game.step(rng.choice(legal))
        rewards.append(reward)
    winner = game.state.winner()
    assert rewards[:-1] == [0.0] * (len(rewards) - 1)
    assert rewards[-1] == (0.0 if winner is None else (1.0 if winner == seat else -1.0))


def test_tak_gym_illegal_actions_raise_or_lose():
    game = MancalaEnv("tak", opponent="luck", size=3)
    game.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action 1: .*first ply places a flat"):
        game.step(1)  # a wall on a1 in the opening
    lose = MancalaEnv("tak", opponent="luck", size=3, illegal="lose")
    lose.reset(seed=0)
    obs, reward, done, truncated, info = lose.step(1)
    assert (reward, done, info["action_mask"].sum()) == (-1.0, True, 0)
    with pytest.raises(ValueError, match="the game is over"):
        lose.step(0)
    with pytest.raises(ValueError, match="illegal must be"):
        MancalaEnv("tak", illegal="ignore")
