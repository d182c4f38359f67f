"""The bounds on a player's work: every parameter checked by the registry with one
message, a hard deadline on every search, bounded trees and tables, and searches that
let other threads run while they think."""

from __future__ import annotations

import threading
import time

import pytest

from mancala.ai.limits import REGISTRY_LIMITS, Limits
from mancala.ai.registry import _REGISTRY, make_player
from mancala.ai.solver import PerfectPlayer, check_fits
from mancala.ai.uct import EDGE_BYTES, NODE_BYTES, tree_nodes
from mancala.game_state import GameState
from mancala.games.sowing.solver import Solver
from webapi.api import SEARCH_LIMITS

LARGEST = GameState.new("kalah", houses=10, seeds=20)  # the largest board the API admits
CAP = 0.3  # seconds: the deadline of the capped searches below


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts:200000000", "mcts simulations must be 1..10000000, not 200000000"),
        ("nmcts:1000000000000", "nmcts playouts must be 1..100000000, not 1000000000000"),
        ("openspiel-mcts:100000000", "openspiel-mcts simulations must be 1..200000, not"),
        ("minimax:t=1e9", "minimax seconds must be 0.001..3600, not 1000000000"),
        ("minimax:101", "minimax depth must be 1..100, not 101"),
        ("minimax:t=0", "minimax seconds must be 0.001..3600, not 0"),
        ("solver:t=7200", "solver seconds must be 0.001..3600, not 7200"),
        ("solver:9", "solver takes t=SECONDS (0.001..3600), not '9'"),
        (
            "mcts:1e3",
            "mcts takes SIMULATIONS (1..10000000) or t=SECONDS (0.001..3600) or "
            "rollout=greedy|random|evaluator|weighted|sarsa, not '1e3'",
        ),
        ("minimax:t=inf", "minimax takes DEPTH (1..100) or t=SECONDS (0.001..3600) or evaluation="),
    ],
)
def test_the_registry_refuses_a_parameter_out_of_its_bounds(spec, message):
    with pytest.raises(ValueError) as error:
        make_player(spec)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts:100001", "mcts simulations must be 1..100000, not 100001"),
        ("nmcts:1000001", "nmcts playouts must be 1..1000000, not 1000001"),
        ("minimax:t=1.5", "minimax seconds must be 0.001..1, not 1.5"),
    ],
)
def test_tighter_limits_refuse_more_and_name_the_most_allowed(spec, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        make_player(spec, limits=SEARCH_LIMITS)
    make_player(spec)  # the registry's own bounds allow it


def test_every_parameter_is_bounded_and_its_default_within_the_apis_limits():
    params = [(name, p) for name, entry in _REGISTRY.items() for p in entry.params]
    choices = {p.kind for _, p in params if p.choices}
    params = [(name, p) for name, p in params if not p.choices]
    assert {p.kind for _, p in params} == {"depth", "seconds", "simulations", "playouts"}
    assert choices == {"rollout", "evaluation"}  # a choice of a few names: no work to bound
    for name, param in params:
        assert 0 < param.low <= param.high < float("inf"), name
        if param.default is not None:
            assert param.low <= param.default <= SEARCH_LIMITS.bound(param), name


@pytest.mark.parametrize("spec", ["minimax:100", "minimax:99", "mcts:10000000", "nmcts:100000000"])
def test_a_capped_search_answers_at_its_deadline_on_the_largest_board(spec):
    player = make_player(spec, seed=1, limits=Limits(seconds=CAP))
    assert player.choose_move(LARGEST) in LARGEST.legal_moves()
    seen = player.evaluate(LARGEST)  # a search as the move's: what it did by its deadline
    if spec.startswith("minimax"):
        assert 1 <= player.reached < 99  # the deepest depth it finished, not the one asked
    elif spec.startswith("mcts"):  # on a busy machine the deadline may come before any
        assert sum(seen["visits"].values()) < player.simulations
    else:
        assert seen["playouts"] * len(LARGEST.legal_moves()) < player.playouts


@pytest.mark.slow
def test_the_mcts_tree_fits_in_the_memory_allowed():
    memory = 64 << 10
    assert tree_nodes(10_000_000, memory, 10) * (NODE_BYTES + 10 * EDGE_BYTES) <= memory
    player = make_player("mcts:20000", seed=1, limits=Limits(memory=memory))
    assert player.choose_move(LARGEST) in LARGEST.legal_moves()  # a full pool rolls out


def test_the_minimax_table_fits_in_the_memory_allowed():
    for limits in (REGISTRY_LIMITS, SEARCH_LIMITS):
        tables = make_player("minimax:2", limits=limits).tt
        assert sum(table.nbytes for table in tables) <= limits.memory


def test_the_solver_refuses_a_board_whose_search_would_not_fit():
    check_fits(GameState.new("kalah"), REGISTRY_LIMITS)
    with pytest.raises(ValueError, match="solver memory must be at most 33554432 bytes here"):
        check_fits(LARGEST, SEARCH_LIMITS)


def test_the_solver_does_not_build_a_database_where_the_limits_forbid(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="no endgame database for Kalah with 5 houses"):
        make_player("solver", limits=SEARCH_LIMITS).choose_move(GameState.new(houses=5))
    assert not any(tmp_path.iterdir())


def test_a_solver_move_and_evaluation_keep_to_the_deadline():
    state = GameState.new(houses=5, seeds=5)  # no opening book: a long proof
    solver = Solver(5, False, 2, cache_dir=None, progress=False, tt_bits=16)
    player = PerfectPlayer(seed=1, solver=solver, limits=Limits(seconds=CAP))
    assert player.choose_move(state) in state.legal_moves()
    assert player.evaluate(state)["exact"] is False  # no proof by the deadline: minimax's


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["minimax:100", "mcts:100000", "nmcts:1000000", "solver"])
def test_a_search_lets_other_threads_run(spec):
    """The numba kernels release the GIL: a thread that ticks every 10 ms keeps ticking
    while a search thinks (a held GIL would stop it for the whole search)."""
    if spec == "solver":
        player = PerfectPlayer(
            seed=1,
            solver=Solver(5, False, 2, cache_dir=None, progress=False, tt_bits=16),
            limits=Limits(seconds=1.0),
        )
        state = GameState.new(houses=5, seeds=5)
    else:
        player = make_player(spec, seed=1, limits=Limits(seconds=1.0))
        state = LARGEST
    player.choose_move(GameState.new("kalah", houses=5, seeds=1))  # compiled or loaded
    thinking = threading.Thread(target=player.choose_move, args=(state,))
    gaps = []
    thinking.start()
    last = time.perf_counter()
    while thinking.is_alive():
        time.sleep(0.01)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    thinking.join()
    assert len(gaps) > 20, len(gaps)  # this thread ran on, again and again, while it searched
