"""The search players: minimax, mcts, nmcts and the openspiel-mcts adapter.

Minimax is checked against a plain exhaustive search over `game_state` (no shared code
with the numba engine) on endgames, captures and extra turns."""

import functools
import random

import pytest

from mancala.ai import make_player
from mancala.ai.minimax import Minimax
from mancala.arena.match import play_games
from mancala.arena.openings import random_opening
from mancala.game_state import GameState, IllegalMove
from mancala.games import new_game
from mancala.games.sowing import search as sowing_search

SEARCHERS = ["minimax", "mcts", "nmcts", "openspiel-mcts"]
FINISHED = GameState.new(board=(0,) * 6 + (24,) + (1,) * 6 + (18,))


@functools.cache
def exact_value(state: GameState) -> int:
    """Player 0's final margin under perfect play: plain minimax to the end."""
    if state.is_over():
        s0, s1 = state.scores()
        return s0 - s1
    values = [exact_value(state.play(m)) for m in state.legal_moves()]
    return max(values) if state.player == 0 else min(values)


def exact_move_values(state: GameState) -> dict[int, int]:
    """Each legal move's perfect-play margin for the player to move."""
    sign = 1 if state.player == 0 else -1
    return {m: sign * exact_value(state.play(m)) for m in state.legal_moves()}


def horizon_values(state: GameState, depth: int) -> dict[int, int]:
    """Each move's depth-limited minimax value (store difference at the horizon, every
    move a ply, extra turns included) for the player to move."""

    def value(s: GameState, d: int) -> int:
        if s.is_over():
            s0, s1 = s.scores()
            return s0 - s1
        if d == 0:
            return s.board[s.store(0)] - s.board[s.store(1)]
        values = [value(s.play(m), d - 1) for m in s.legal_moves()]
        return max(values) if s.player == 0 else min(values)

    sign = 1 if state.player == 0 else -1
    return {m: sign * value(state.play(m), depth - 1) for m in state.legal_moves()}


# ----- bad input ---------------------------------------------------------------------


@pytest.mark.parametrize("param", ["0", "-1", "x", "1.5", "", "t=0", "t=nan", "t=inf", "t=-2"])
def test_minimax_refuses_bad_depth_or_time(param):
    with pytest.raises(ValueError, match=r"minimax (takes DEPTH|depth must be|seconds must be)"):
        make_player(f"minimax:{param}")


def test_minimax_refuses_a_depth_beyond_its_limit():
    with pytest.raises(ValueError, match=r"minimax depth must be 1\.\.100, not 101"):
        make_player("minimax:101")


@pytest.mark.parametrize("name", ["mcts", "nmcts", "openspiel-mcts"])
@pytest.mark.parametrize("param", ["0", "-1", "x", "1.5", "", "t=1", "t=0"])
def test_monte_carlo_players_refuse_bad_counts(name, param):
    if name == "mcts" and param == "t=1":
        param = "t=1e9"  # mcts takes a time, within the registry's bound
    with pytest.raises(ValueError, match=rf"{name} (takes|(simulations|playouts|seconds) must be)"):
        make_player(f"{name}:{param}")


@pytest.mark.parametrize("spec", [f"{name}:50" for name in SEARCHERS] + ["minimax:t=0.01"])
def test_search_on_a_finished_game_raises_illegal_move(spec):
    with pytest.raises(IllegalMove, match="over"):
        make_player(spec).choose_move(FINISHED)
    if spec.startswith(("minimax", "mcts", "nmcts")):
        with pytest.raises(IllegalMove):
            make_player(spec).evaluate(FINISHED)


# ----- minimax against the exhaustive search -----------------------------------------


def test_minimax_takes_the_winning_capture():
    # House 0's one seed lands in empty house 1 and takes the 5 opposite (house 11):
    # a win by 6; the other moves win by 2 or draw.
    state = GameState.new(board=(1, 0, 0, 1, 0, 2, 17, 1, 0, 0, 0, 5, 0, 21))
    assert exact_move_values(state) == {0: 6, 3: 2, 5: 0}
    assert {make_player("minimax:12", seed=s).choose_move(state) for s in range(5)} == {0}
    assert make_player("minimax:12").evaluate(state)["moves"] == {0: 6.0, 3: 2.0, 5: 0.0}


@pytest.mark.parametrize(
    "board, player, winning",
    [
        ((1, 0, 0, 2, 0, 1, 19, 1, 3, 0, 1, 0, 0, 20), 0, 5),
        ((0, 2, 0, 0, 0, 1, 21, 0, 1, 2, 0, 2, 0, 19), 1, 4),
    ],
)
def test_minimax_and_mcts_find_the_only_win_through_an_extra_turn(board, player, winning):
    state = GameState.new(board=board, player=player)
    values = exact_move_values(state)
    assert [m for m, v in values.items() if v > 0] == [winning]
    assert state.play(winning).player == player  # the same player moves again
    assert make_player("minimax:30").evaluate(state)["moves"] == {
        m: float(v) for m, v in values.items()
    }
    for seed in range(3):
        assert make_player("minimax:t=0.05", seed=seed).choose_move(state) == winning
        assert make_player("mcts:3000", seed=seed).choose_move(state) == winning


def endgames(count: int, seeds_left: int, seed: int) -> list[GameState]:
    """Positions of random Kalah(6,4) games once at most `seeds_left` seeds are in houses."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        state = GameState.new()
        while not state.is_over() and sum(state.side(0)) + sum(state.side(1)) > seeds_left:
            state = state.play(rng.choice(state.legal_moves()))
        if not state.is_over() and len(state.legal_moves()) > 1:
            found.append(state)
    return found


@pytest.mark.slow
def test_minimax_solves_endgames_exactly():
    for state in endgames(40, 8, seed=11):
        exact = exact_move_values(state)
        best = max(exact.values())
        player = Minimax(seed=1, depth=40)
        assert player.evaluate(state)["moves"] == {m: float(v) for m, v in exact.items()}, state
        assert exact[player.choose_move(state)] == best, state


def test_minimax_never_picks_a_move_that_only_ties_as_a_bound():
    # Searched with the window left by the best move, moves 2 and 4 come back as upper
    # bounds equal to the best value (0); their true values are -2 and -9. The random
    # tie-break once picked them (2 times in 3); now later moves get a window that
    # makes a tie exact.
    state = GameState.new(board=(2, 7, 9, 0, 3, 0, 8, 1, 2, 2, 0, 6, 0, 8))
    values = horizon_values(state, 2)
    assert values == {0: -11, 1: 0, 2: -2, 4: -9}
    assert Minimax(depth=2).evaluate(state)["moves"] == {m: float(v) for m, v in values.items()}
    assert {Minimax(seed=s, depth=2).choose_move(state) for s in range(20)} == {1}


def test_minimax_depth_limited_values_match_plain_minimax():
    rng = random.Random(2)
    for variant in ("kalah", "sungka"):
        for _ in range(6):
            state, _ = random_opening(GameState.new(variant), rng.randrange(12), rng)
            if state.is_over():
                continue
            chosen = Minimax(seed=3, depth=3).choose_move(state)
            values = horizon_values(state, 3)
            assert values[chosen] == max(values.values()), state


def test_the_recursive_search_has_one_numba_signature():
    # numba segfaults loading a recursive function from its cache when it was compiled
    # for two signatures (issues #6061, #6713): keep every call's types the same.
    Minimax(depth=3).choose_move(GameState.new())
    Minimax(depth=3).evaluate(GameState.new("sungka"))
    assert len(sowing_search._search.signatures) <= 1


def test_minimax_evaluation_is_a_parameter():
    # A Python evaluation (player 0's view) replaces the store difference: one that
    # prizes seeds in player 0's first house makes minimax:1 keep them there.
    state = GameState.new()
    player = Minimax(depth=1, evaluate=lambda s: s.board[0])
    assert player.choose_move(state) != 0
    moves = player.evaluate(state)["moves"]
    assert moves[0] == 0.0 and all(v == 4.0 for m, v in moves.items() if m != 0)


# ----- Monte Carlo players -----------------------------------------------------------


@pytest.mark.parametrize("spec", ["mcts:2000", "nmcts:3000"])
def test_seeded_monte_carlo_repeats_itself(spec):
    state = GameState.new().play(1)
    first = make_player(spec, seed=4).evaluate(state)
    assert make_player(spec, seed=4).evaluate(state) == first
    assert make_player(spec, seed=5).evaluate(state) != first


def test_mcts_values_are_for_the_player_to_move():
    # Player 1 to move and winning by far: every move's mean result is close to +1.
    state = GameState.new(board=(1, 1, 0, 0, 0, 0, 10, 1, 1, 1, 1, 1, 1, 30), player=1)
    found = make_player("mcts:2000", seed=1).evaluate(state)
    assert sum(found["visits"].values()) == 2000
    assert min(found["moves"].values()) > 0.9


def test_mcts_rollout_policy_is_a_parameter():
    from mancala.ai.mcts import MCTS

    with pytest.raises(ValueError, match="unknown rollout policy 'network'"):
        MCTS(rollout="network")
    state = GameState.new().play(3)
    random_rollouts = MCTS(seed=1, simulations=1500, rollout="random").evaluate(state)
    greedy_rollouts = MCTS(seed=1, simulations=1500, rollout="greedy").evaluate(state)
    assert random_rollouts != greedy_rollouts
    assert sum(random_rollouts["visits"].values()) == 1500


@pytest.mark.parametrize("variant", ["kalah", "tak"])
def test_timed_mcts_searches_until_its_time_is_up(variant):
    from mancala.ai.mcts import MOST_SIMULATIONS

    state = new_game(variant)
    player = make_player("mcts:t=0.05", seed=1)
    assert player.simulations == MOST_SIMULATIONS and player.seconds == 0.05
    visits = sum(player.evaluate(state)["visits"].values())
    assert 0 < visits < MOST_SIMULATIONS  # stopped by the time, not by a count
    assert player.choose_move(state) in state.legal_moves()
    assert player.simulations_done > 0 and -1 <= player.score <= 1  # what TEI's info says
    with pytest.raises(ValueError, match="takes one of SIMULATIONS"):
        make_player("mcts:300,t=0.05")


@pytest.mark.parametrize("variant", ["kalah", "tak"])
def test_a_search_whose_time_is_up_before_it_starts_still_tries_a_move(variant):
    import numpy as np

    from mancala.ai import uct
    from mancala.ai.mcts import playout_kernel

    kernel = playout_kernel(variant).kernel(new_game(variant))
    counter = np.array([0, -1], np.int64)  # what a passed deadline leaves
    visits, _ = uct.search(kernel, counter, 1000, 1.4, 1)
    assert visits.sum() == 1 and counter[0] == 1


def wins_against_luck(spec: str, games: int, variant: str = "kalah") -> int:
    rng = random.Random(8)
    openings = [random_opening(GameState.new(variant), 2, rng) for _ in range(games)]
    starts, moves = [s for s, _ in openings], [m for _, m in openings]
    wins = 0
    for seat in (0, 1):
        players = [make_player("luck", seed=1), make_player("luck", seed=1)]
        players[seat] = make_player(spec, seed=2)
        records = play_games(players, starts, openings=moves)
        wins += sum(r["winner"] == seat for r in records)
    return wins


@pytest.mark.parametrize(
    "spec, variant",
    [("minimax:4", "kalah"), ("mcts:2000", "kalah"), ("nmcts:2000", "kalah")]
    + [("minimax:4", "sungka"), ("mcts:2000", "sungka")],
)
def test_search_beats_luck(spec, variant):
    assert wins_against_luck(spec, 4, variant) >= 7  # of 8, both seats


# ----- the OpenSpiel adapter ---------------------------------------------------------


def openspiel_board(spiel) -> tuple[int, ...]:
    pits = [int(x) for x in spiel.observation_tensor(0)[:14]]
    return tuple(pits[1:8] + pits[8:14] + pits[0:1])


def test_openspiel_mcts_replays_the_position_it_is_asked():
    player = make_player("openspiel-mcts:200", seed=1)
    rng = random.Random(3)
    state, _ = random_opening(GameState.new(), 4, rng)
    while not state.is_over():
        if state.player == 0:
            spiel = player._spiel_state(state)
            assert openspiel_board(spiel) == state.board
            assert spiel.current_player() == state.player
            state = state.play(player.choose_move(state))
        else:
            state = state.play(rng.choice(state.legal_moves()))


@pytest.mark.parametrize(
    "state",
    [
        GameState.new("sungka"),
        GameState.new(houses=4, seeds=3),
        GameState.new(empty_capture=True),
        GameState.new(board=(0, 0, 0, 0, 12, 12, 0, 4, 4, 4, 4, 4, 4, 0)),
    ],
)
def test_openspiel_mcts_refuses_what_it_cannot_play(state):
    with pytest.raises(ValueError, match="openspiel-mcts"):
        make_player("openspiel-mcts:50").choose_move(state)
