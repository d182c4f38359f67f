"""Conformance: every registered player plays only legal moves, in every game and both
seats, and its games end."""

import random
import re

import pytest

from mancala.ai import available_players, make_player
from mancala.ai.registry import can_play, tournament_players
from mancala.ai.simple import Exact, Max
from mancala.arena.match import play_games
from mancala.arena.openings import random_opening
from mancala.game_state import GameState, IllegalMove
from mancala.games import game_names, new_game
from mancala.games.replay import replayed

STARTS = {
    "kalah": new_game("kalah"),
    "sungka": new_game("sungka"),
    "tak": new_game("tak", size=4),
}


def checked_games(spec: str, variant: str, games: int = 1):
    """Games of `spec` against luck in both seats from random openings (`games` a seat);
    every move checked.
    A timed player searches a hundredth of a second a move: what is checked is the moves
    it picks, not how long it thinks."""
    spec = re.sub(r"\bt=[0-9.]+", "t=0.01", spec)
    rng = random.Random(5)
    starts, openings = [], []
    for _ in range(games):
        state, moves = random_opening(STARTS[variant], 3, rng)
        starts.append(state)
        openings.append(moves)
    seen = []

    def on_move(_game, state, move):
        assert move in state.legal_moves(), f"{spec} played illegal {move} in {state}"
        seen.append(move)

    for seats in ([spec, "luck"], ["luck", spec]):
        players = [make_player(name, seed=3) for name in seats]
        for record in play_games(players, starts, openings=openings, on_move=on_move):
            assert record["winner"] in (0, 1, None)
            assert replayed(STARTS[variant], record["moves"]).is_over()
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("variant", game_names())
def test_every_player_plays_only_legal_moves(variant):
    """Every player of the game that can play these rules (a network is made for one
    board: az on Tak 5x5, tested in tests/ai/test_az.py, not on this 4x4 board)."""
    specs = [spec for spec in tournament_players(variant) if can_play(spec, STARTS[variant])]
    assert {"luck", "greedy", "minimax:t=0.1", "mcts:5000"} <= set(specs)
    for spec in [spec for spec in specs if can_play(spec, STARTS[variant])]:  # nets: their board
        assert checked_games(spec, variant), spec


def test_human_is_registered_but_left_out_of_tournaments():
    assert "human" in available_players()
    assert "human" not in tournament_players()


def test_players_refuse_a_finished_game():
    end = GameState.new(board=(0,) * 6 + (24,) + (1,) * 6 + (18,))
    for spec in ("luck", "greedy", "max", "exact"):
        with pytest.raises(IllegalMove):
            make_player(spec).choose_move(end)


def test_seeded_players_repeat_themselves():
    state = GameState.new()
    first = [make_player("luck", seed=9).choose_move(state) for _ in range(5)]
    assert len(set(first)) == 1
    many = {make_player("luck", seed=s).choose_move(state) for s in range(30)}
    assert len(many) > 1


def test_greedy_takes_the_capture():
    # House 0 (1 seed) lands in empty house 1, opposite house 11 holds 9 seeds.
    state = GameState.new(board=(1, 0, 1, 1, 1, 1, 0, 4, 4, 4, 4, 9, 4, 14))
    assert make_player("greedy").choose_move(state) == 0


def test_max_and_exact_follow_the_paper():
    state = GameState.new("sungka", board=(1, 5, 9, 0, 3, 1, 1, 20, 7, 7, 7, 7, 7, 7, 7, 9))
    assert Max().choose_move(state) == 2  # the fullest house
    assert Exact().choose_move(state) == 6  # 1 shell from house 6 lands in the head
    assert GameState.new("sungka", board=state.board).play(6).player == 0


@pytest.mark.parametrize("spec", ["nobody", "luck:3", "../etc/passwd", "greedy:"])
def test_bad_names_are_refused_clearly(spec):
    with pytest.raises(ValueError, match="player"):
        make_player(spec)
