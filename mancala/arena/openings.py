"""Openings: random first moves of any game, through the game protocol alone
(`mancala.games.new_game`, `state.legal_moves`, `state.play`), so that matches between
deterministic players differ, and their openings can be screened for balance.

>>> import random
>>> from mancala.games import new_game
>>> from mancala.games.replay import replayed
>>> state, moves = random_opening(new_game("kalah", houses=4, seeds=3), 3, random.Random(1))
>>> len(moves), state == replayed(new_game("kalah", houses=4, seeds=3), moves)
(3, True)
"""

from __future__ import annotations

import random
from typing import Any

from mancala.ai.minimax import Minimax
from mancala.games import Capability, capabilities

State = Any  # a state of any game of the protocol (mancala.games)
BALANCE_DEPTH = 12  # plies of the minimax search that judges an opening's balance


def random_opening(start: State, plies: int, rng: random.Random) -> tuple[State, list[int]]:
    """`start` after `plies` uniformly random moves (fewer if the game ends first), and
    those moves."""
    state, moves = start, []
    for _ in range(plies):
        legal = state.legal_moves()
        if not legal:
            break
        moves.append(rng.choice(legal))
        state = state.play(moves[-1])
    return state, moves


def opening_going_on(
    start: State, plies: int, rng: random.Random, tries: int = 100
) -> State | None:
    """`start` after `plies` random moves that leave the game going on (drawn again while
    they end it), or None when `tries` draws all ended it."""
    for _ in range(tries):
        state, _ = random_opening(start, plies, rng)
        if not state.is_over():
            return state
    return None


def random_openings(
    start: State, count: int, rng: random.Random, plies: int, vary: bool = False
) -> tuple[list[State], list[list[int]]]:
    """`count` random openings of `plies` moves from `start` (with `vary`, each of 0..`plies`
    moves, drawn before it): (the positions, their moves)."""
    drawn = [
        random_opening(start, rng.randint(0, plies) if vary else plies, rng) for _ in range(count)
    ]
    return [state for state, _ in drawn], [moves for _, moves in drawn]


def draw_openings(
    start: State, count: int, plies: int, seed: int, balanced: int | None = None
) -> list[list[int]]:
    """`count` openings of `plies` random moves from `start`, distinct while possible;
    with `balanced`, only openings whose minimax value is within that many seeds of 0."""
    if balanced is not None and balanced < 0:
        raise ValueError(f"--balanced takes a number of seeds >= 0, not {balanced}")
    if balanced is not None and Capability.SOWING not in capabilities(start):
        raise ValueError(f"--balanced counts seeds: {start.game} has none")
    rng = random.Random(seed)
    judge = Minimax(seed=seed, depth=BALANCE_DEPTH) if balanced is not None else None
    openings: list[list[int]] = []
    tries = 0
    while len(openings) < count:
        state, moves = random_opening(start, plies, rng)
        tries += 1
        if judge and abs(opening_value(judge, state)) > balanced and tries <= 100 * count:
            continue
        if moves not in openings or tries > 20 * count:
            openings.append(moves)
    return openings


def opening_value(judge: Minimax, state: State) -> float:
    """The value `judge` expects for the first player: the final store difference in a
    sowing game (an ended one: its stores'), else the game evaluator's units."""
    if state.is_over():
        s0, s1 = state.scores()
        return float(s0 - s1)
    value = judge.evaluate(state)["value"]
    return value if state.player == 0 else -value
