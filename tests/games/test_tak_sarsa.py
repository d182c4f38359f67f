"""Tak's seed learners: the SARSA table (mancala/games/tak/sarsa.py) learns on 3x3, keeps
its file whole and refuses a bad one; its features aggregate what they say; the move
policies of the playouts; `mcts:rollout=NAME` through the numba UCT driver; the
`mancala sarsa` command, resumed from its file."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mancala.ai import make_player
from mancala.ai.mcts import MCTS, rollout_names
from mancala.ai.registry import MCTS_ROLLOUTS, can_play
from mancala.arena.match import play_games
from mancala.arena.openings import random_opening
from mancala.games import new_game
from mancala.games.tak import from_tps
from mancala.games.tak.fast import legal_moves, to_arrays
from mancala.games.tak.policies import new_keys, position_key, weighted_move
from mancala.games.tak.sarsa import Settings, Table, shipped_sizes

ROAD_IN_ONE = "2,2,2,x2/x5/x5/x5/1,1,1,1,x 1 5"  # white to move: e1 wins


@pytest.mark.slow
def test_sarsa_learns_to_beat_random_moves_on_3x3():
    table = Table.new(Settings(size=3, alpha=0.1, loss=-1.0))
    rewards = table.learn(200_000, seed=1)
    wins = (rewards == 1).reshape(10, -1).mean(axis=1)
    assert wins[-1] > wins[0] + 0.1, wins
    assert len(table.rewards) == 200_000 and set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}


def test_a_table_file_reads_back_and_a_bad_one_is_refused(tmp_path):
    table = Table.new(Settings(size=3, bits=12))
    table.learn(500, seed=2)
    path = tmp_path / "t.npz"
    table.save(path)
    again = Table.load(path)
    assert np.array_equal(again.values, table.values) and again.rewards == table.rewards
    assert again.settings == table.settings and np.count_nonzero(again.values) > 0
    with pytest.raises(ValueError, match="no SARSA table at"):
        Table.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not a SARSA table"):
        Table.load(tmp_path / "junk.npz")
    np.savez(tmp_path / "other.npz", values=np.zeros(4))
    with pytest.raises(ValueError, match="is not a SARSA table"):
        Table.load(tmp_path / "other.npz")
    with pytest.raises(ValueError, match="alpha is in 0..1"):
        Table.new(Settings(alpha=2.0))


def test_the_features_are_the_movers_view_of_the_tops():
    keys = new_keys(5)
    key = lambda tps: int(position_key(*to_arrays(from_tps(tps)), *keys[:2]))  # noqa: E731
    # the same tops and height classes: one entry, whatever lies under the top
    assert key("x5/x5/x5/x5/12,x4 1 3") == key("x5/x5/x5/x5/22,x4 1 3")
    assert key("x5/x5/x5/x5/12,x4 1 3") != key("x5/x5/x5/x5/21,x4 1 3")
    assert key("x5/x5/x5/x5/12,x4 1 3") != key("x5/x5/x5/x5/2,x4 1 3")  # height 2 against 1
    # white to move with white's flat = black to move with black's flat (same reserves)
    assert key("x5/x5/x5/x5/1,2,x3 1 3") == key("x5/x5/x5/x5/2,1,x3 2 3")


def test_weighted_moves_place_and_move_stacks_about_as_often():
    meta, colours = to_arrays(from_tps("x5/x5/x5/x5/1,2,x3 1 3"))
    moves = np.empty(4000, np.int64)
    n = legal_moves(meta, colours, moves)
    placements = 3 * 25
    chosen = [int(weighted_move(meta, moves, n)) for _ in range(2000)]
    placed = sum(m < placements for m in chosen) / len(chosen)
    assert 0.45 < placed < 0.55  # luck would place 72 of 76 moves
    assert set(chosen) <= set(moves[:n].tolist())


def test_mcts_offers_each_games_leaf_values_and_refuses_the_others():
    assert list(MCTS_ROLLOUTS) == rollout_names()
    tak, kalah = new_game("tak", size=4), new_game("kalah")
    with pytest.raises(ValueError, match="not one of kalah's: greedy, random"):
        MCTS(seed=1, simulations=10, rollout="weighted").choose_move(kalah)
    with pytest.raises(ValueError, match=r"or rollout=greedy\|random\|.*, not 'rollout=network'"):
        make_player("mcts:rollout=network")
    assert 8 not in shipped_sizes()
    with pytest.raises(ValueError, match="mancala sarsa --size 8 --runs 1"):
        MCTS(seed=1, simulations=10, rollout="sarsa").choose_move(new_game("tak", size=8))
    for rollout in ("evaluator", "random", "weighted"):
        found = MCTS(seed=1, simulations=400, rollout=rollout).evaluate(tak)
        assert sum(found["visits"].values()) == 400, rollout


@pytest.mark.parametrize("rollout", ["evaluator", "random", "weighted"])
def test_mcts_plays_a_road_in_one_with_every_leaf_value(rollout):
    state = from_tps(ROAD_IN_ONE)
    player = make_player(f"mcts:3000,rollout={rollout}", seed=1)
    assert state.move_name(player.choose_move(state)) in {"e1", "Ce1"}


def test_the_shipped_table_plays_3x3_and_guides_playouts():
    assert can_play("sarsa", new_game("tak", size=3)) and not can_play("sarsa", new_game("kalah"))
    rng = random.Random(4)
    state, opening = random_opening(new_game("tak", size=3), 2, rng)
    for spec in ("sarsa", "mcts:200,rollout=sarsa"):
        players = [make_player(spec, seed=1), make_player("luck", seed=2)]
        for seats in (players, players[::-1]):
            [record] = play_games(seats, [state], openings=[opening])
            assert record["winner"] in (0, 1, None)


@pytest.mark.slow
def test_the_command_prints_the_curve_and_resumes_its_table(tmp_path, lab_main):
    out = tmp_path / "t.npz"
    command = ["sarsa", "--runs", "2", "--episodes", "300"]
    command += ["--bits", "12", "--out", str(out), "--json", str(tmp_path / "c.json")]
    first = lab_main(*command)
    assert first.returncode == 0, first.stderr
    assert "| 271-300 |" in first.stdout and len(Table.load(out).rewards) == 300
    again = lab_main(*command)
    assert again.returncode == 0, again.stderr
    assert "going on from" in again.stderr and len(Table.load(out).rewards) == 600
    assert Table.load(out).command.startswith("mancala sarsa --runs 2 --episodes 300")
    bad = lab_main("sarsa", "--alpha", "3")
    assert bad.returncode == 2 and "--alpha" in bad.stderr
