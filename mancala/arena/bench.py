"""Speed of the rules, the numba engine, OpenSpiel, the search players and the zoo's
networks (`network_table`) on this machine: the tables of `mancala bench` (the solver's and
Tak's, on fixed positions: `mancala.arena.bench_positions`).

Every number comes from this one run, so the ratios compare like with like on a shared,
noisy machine. Rates are per second of this process's CPU time (`time.process_time`:
one core, and other jobs on the machine do not count against it); seconds a move are
wall-clock, as a player's opponent sees them, and `minimax:t=1.0` stops by the wall
clock. Random games are Kalah(6,4) from the opening, uniform legal moves, the same
number of games through each engine. OpenSpiel (`pyspiel`) is optional: without
it its rows are left out.

`verify` (`--verify`) plays random games of Kalah(6,4) (both capture rules), Kalah(4,3)
and Sungka through both `mancala.games.sowing.engine` and `mancala.game_state` until a
million moves have been compared, board and player to move after every move, and reports
the mismatches (the command exits 1 if there is any).
"""

from __future__ import annotations

import importlib.util
import random
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from mancala.ai.registry import make_player
from mancala.arena.match import play_game
from mancala.arena.openings import random_opening
from mancala.arena.tournament import Timed
from mancala.core.report import Table
from mancala.game_state import KALAH, SUNGKA, GameState
from mancala.games import GAMES, Capability, capabilities, describe, new_game
from mancala.games.sowing import engine
from mancala.games.tak.state import TakState
from mancala.nn_lib.policy_value import AZ_GAMES

T = TypeVar("T")
DEFAULT_PLAYERS = ["minimax", "mcts", "nmcts", "greedy", "openspiel-mcts"]
VERIFY_RULES = [
    GameState.new(KALAH),
    GameState.new(KALAH, empty_capture=True),
    GameState.new(KALAH, houses=4, seeds=3),
    GameState.new(SUNGKA),
]


def say(text: str, **_: Any) -> None:
    """A line of progress on stderr, at once (the tables go to stdout)."""
    print(text, file=sys.stderr, flush=True)


def title(game: str) -> str:
    return f"{game}, one process, {time.strftime('%Y-%m-%d %H:%M')}"


def timed(call: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, float]:
    """`call(*args, **kwargs)` and the seconds of this process's CPU time it took.

    >>> timed(sum, range(10))[0]
    45
    """
    began = time.process_time()
    return call(*args, **kwargs), time.process_time() - began


def rules_games(games: int, seed: int) -> tuple[float, int]:
    """Seconds and moves for `games` random games through `game_state`."""
    rng = random.Random(seed)
    start, moves = GameState.new(), 0
    began = time.process_time()
    for _ in range(games):
        state = start
        while not state.is_over():
            state = state.play(rng.choice(state.legal_moves()))
            moves += 1
    return time.process_time() - began, moves


def engine_games(games: int, seed: int) -> tuple[float, int]:
    """Seconds and moves for `games` random games through the numba engine."""
    board, player, rules = engine.to_arrays(GameState.new())
    engine.random_games(board, player, *rules, 10, seed)  # compile or load from cache
    (*_, moves), took = timed(engine.random_games, board, player, *rules, games, seed)
    return took, int(moves)


def pyspiel_games(games: int, seed: int) -> tuple[float, int]:
    """Seconds and moves for `games` random games of OpenSpiel's `mancala` via pyspiel."""
    import pyspiel

    game = pyspiel.load_game("mancala")
    rng = random.Random(seed)
    moves = 0
    began = time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
    return time.process_time() - began, moves


def search_rates() -> list[tuple[str, str]]:
    """Rows: minimax nodes/s and depth in 1 s, MCTS simulations/s, nmcts playouts/s."""
    opening = GameState.new()
    minimax = make_player("minimax:t=1.0", seed=0)
    _, took = timed(minimax.choose_move, opening)
    rows = [
        (
            "minimax:t=1.0 from the opening",
            f"{minimax.nodes / took:,.0f} nodes/s, depth {minimax.reached} "
            f"({minimax.nodes:,} nodes in {took:.2f} s of CPU)",
        )
    ]
    for start in (opening, new_game(TakState.game, **AZ_GAMES[TakState.game])):
        row, rate = mcts_rate(start, 200_000)
        rows += [row, az_rate(start, rate)]
    player = make_player("nmcts:1000", seed=0)
    player.choose_move(opening)
    player = make_player("nmcts:200000", seed=0)
    _, took = timed(player.choose_move, opening)
    rows.append(("nmcts:200000 from the opening", f"{200_000 / took:,.0f} playouts/s"))
    return rows


def mcts_rate(opening: GameState, count: int) -> tuple[tuple[str, str], float]:
    """(row, rate): mcts's simulations/s (its game's default leaf values) from `opening`."""
    make_player("mcts:1000", seed=0).choose_move(opening)  # compile or load from cache
    player = make_player(f"mcts:{count}", seed=0)
    rate = count / timed(player.choose_move, opening)[1]
    return (f"mcts:{count} from the opening{_of(opening)}", f"{rate:,.0f} simulations/s"), rate


def _of(opening: GameState) -> str:
    """'' for Kalah's standard opening, else ' of' the game in words."""
    return "" if opening == GameState.new() else f" of {describe(opening)}"


def az_rate(opening: GameState, mcts_rate: float | None = None) -> tuple[str, str]:
    """Row: az's simulations/s (the network valuing every leaf) from `opening`, beside
    plain mcts's `mcts_rate` when given."""
    spec = "az:100000" if Capability.SOWING in capabilities(opening) else "az:20000"
    where = f"{spec} from the opening{_of(opening)}"
    try:
        make_player("az:1000", seed=0).search(opening)  # load weights, compile (a move
        # from the opening could come from the solver's book, without a search)
    except ValueError as error:  # no policy-value weights
        return (where, f"not measured ({error})")
    player = make_player(spec, seed=0)
    (visits, *_), took = timed(player.search, opening)
    rate = visits.sum() / took
    beside = f", {rate / mcts_rate:.2f}x mcts" if mcts_rate else ""
    return (where, f"{rate:,.0f} network-evaluated simulations/s{beside}")


def seconds_per_move(specs: list[str], games: int, seed: int) -> list[tuple[str, str]]:
    """Rows: mean seconds a move of each player over `games` games against luck."""
    rows = []
    for spec in specs:
        try:
            player = make_player(spec, seed=seed)
        except ValueError as error:  # e.g. openspiel-mcts without pyspiel
            rows.append((f"{spec}: seconds a move", f"not measured ({error})"))
            continue
        player.choose_move(GameState.new())  # compile or load from cache
        clock = {spec: [0.0, 0]}
        timed_player = Timed(player, clock)  # the tournament's stopwatch
        for game in range(games):
            play_game([timed_player, make_player("luck", seed=seed + game)], seed=seed)
        rows.append(
            (
                f"{spec}: seconds a move",
                f"{clock[spec][0] / clock[spec][1]:.3g} ({clock[spec][1]} moves, wall clock)",
            )
        )
    return rows


def bench(games: int, timed_games: int, seed: int) -> Table:
    """The table of one run."""
    table = Table(["what", "measured"], title=title("Kalah(6,4)"))
    say(f"random games: {games} through each engine ...")
    runs = {
        "rules (game_state)": rules_games(games, seed),
        "numba engine": engine_games(games, seed),
    }
    if importlib.util.find_spec("pyspiel") is not None:
        runs["OpenSpiel mancala (pyspiel)"] = pyspiel_games(games, seed)
    base = runs.get("OpenSpiel mancala (pyspiel)")
    for name, (took, moves) in runs.items():
        ratio = f", {base[0] / took:.2f}x pyspiel" if base else ""
        table.add(
            f"{name}: {games} random games",
            f"{games / took:,.0f} games/s, {moves / took:,.0f} moves/s{ratio}",
        )
    say("search players ...")
    table.rows += [list(row) for row in search_rates()]
    say(f"seconds a move over {timed_games} game(s) against luck ...")
    table.rows += [list(row) for row in seconds_per_move(DEFAULT_PLAYERS, timed_games, seed)]
    return table


def verify(target: int, seed: int) -> tuple[int, str]:
    """Random games through engine and rules until `target` moves: the mismatches, and a
    line saying what was compared."""
    rng = random.Random(seed)
    compared = mismatches = games = 0
    began = last = time.perf_counter()
    while compared < target:
        start = VERIFY_RULES[games % len(VERIFY_RULES)]
        games += 1
        board, player, rules = engine.to_arrays(start)
        state = start
        while not state.is_over() and compared < target:
            move = rng.choice(state.legal_moves())
            player = engine.play(board, player, move, *rules)
            state = state.play(move)
            compared += 1
            if player != state.player or not np.array_equal(board, state.board):
                mismatches += 1
                say(f"mismatch after move {move}: rules {state.board} {state.player}")
                board, player = engine.to_arrays(state)[:2]  # carry on from the rules
        if engine.is_over(board, rules[0], rules[1]) != state.is_over():
            mismatches += 1
            say(f"mismatch: the game is over by one and not the other: {state.board}")
        if time.perf_counter() - last > 5:
            last = time.perf_counter()
            say(f"{compared:,} moves compared in {games:,} games, {mismatches} mismatches")
    took = time.perf_counter() - began
    return mismatches, (
        f"{compared:,} moves in {games:,} random games (Kalah(6,4) both capture rules, "
        f"Kalah(4,3), Sungka) compared move for move in {took:.0f} s: {mismatches} mismatches"
    )


def per_call(function: Callable[[Any], Any], argument: Any, repeat: int) -> float:
    """Seconds a call of `function(argument)`, the best of 3 runs of `repeat` calls."""
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        for _ in range(repeat):
            function(argument)
        best = min(best, (time.perf_counter() - began) / repeat)
    return best


def network_table(start: GameState, names: list[str], repeat: int) -> Table:
    """Microseconds a move of each zoo network of `names` on positions of `start`'s game:
    one position, and in a batch of 256; beside them, for a sowing game, Keras'
    `predict_on_batch` of one position and how many times slower it is (a Tak move values
    every position after it: no one call to compare)."""
    from mancala.ai.network import NetworkPlayer
    from mancala.games.sowing.view import mover_views

    rng = random.Random(0)
    states = [random_opening(start, rng.randint(0, 20), rng)[0] for _ in range(400)]
    states = [s for s in states if not s.is_over()][:256]
    sown = not GAMES[start.game].planes
    table = Table(["network", "one move (µs)", "a move in a batch of 256 (µs)"])
    if sown:
        table.headers += ["Keras, one (µs)", "ratio"]
    for name in names:
        player = NetworkPlayer(network=name)
        one = per_call(player.choose_move, states[0], repeat)
        batch = per_call(player.choose_moves, states, max(1, repeat // 100))
        row = [name, round(1e6 * one), round(1e6 * batch / len(states), 1)]
        if sown:
            x = player.net.encode(mover_views(states[:1]))
            keras_one = per_call(player.net.model.predict_on_batch, x, max(1, repeat // 20))
            row += [round(1e6 * keras_one), f"{keras_one / one:.0f}x"]
        table.add(*row)
    return table
