"""The rules agree with OpenSpiel's `mancala` (Kalah(6,4)), written by other people.

OpenSpiel leaves the last seeds in the houses at the end and counts them in `returns`;
our rules sweep them into the stores. So at the end we compare our stores with the
seeds on each side of OpenSpiel's board.
"""

import random

import pyspiel  # open_spiel: a test dependency (requirements-dev.txt)
import pytest

from mancala.game_state import GameState


def openspiel_board(state) -> tuple[int, ...]:
    """OpenSpiel's pits (0: player 1's store, 1-6, 7: player 0's store, 8-13) in our layout."""
    pits = [int(x) for x in state.observation_tensor(0)[:14]]
    return tuple(pits[1:8] + pits[8:14] + pits[0:1])


def our_move_to_action(state: GameState, move: int) -> int:
    return 1 + move + state.player * 7


@pytest.mark.slow
def test_random_games_agree_with_openspiel_move_for_move():
    game = pyspiel.load_game("mancala")
    rng = random.Random(2026)
    winners = {0: 0, 1: 0, None: 0}
    for _ in range(2000):
        ours, theirs = GameState.new(), game.new_initial_state()
        while not ours.is_over():
            assert not theirs.is_terminal()
            assert sorted(our_move_to_action(ours, m) for m in ours.legal_moves()) == sorted(
                theirs.legal_actions()
            )
            move = rng.choice(ours.legal_moves())
            theirs.apply_action(our_move_to_action(ours, move))
            ours = ours.play(move)
            board = openspiel_board(theirs)
            if ours.is_over():
                assert ours.scores() == (sum(board[:7]), sum(board[7:]))
                assert ours.board == (0,) * 6 + (sum(board[:7]),) + (0,) * 6 + (sum(board[7:]),)
            else:
                assert ours.board == board
                assert ours.player == theirs.current_player()
        assert theirs.is_terminal()
        returns = theirs.returns()
        expected = None if returns[0] == returns[1] else int(returns[1] > returns[0])
        assert ours.winner() == expected
        winners[ours.winner()] += 1
    assert all(winners.values()), winners  # wins of each seat and draws all occurred
