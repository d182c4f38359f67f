"""Simulations a second of az (the PUCT driver) and mcts (the UCT driver) on fixed
positions of each game, kernels warm: for comparing two checkouts of the lab.

    PYTHONPATH=CHECKOUT python experiments/driver_speed.py

It calls only `AZ.search` and `MCTS.evaluate`, which every version since the drivers
were made one offers, so the same file measures an older checkout too.
"""

from __future__ import annotations

import random
import time

from mancala.ai.az import AZ
from mancala.ai.mcts import MCTS
from mancala.games import new_game


def positions(game: str, options: dict, count: int = 8, seed: int = 1) -> list:
    """`count` positions of random games, 0 to 19 plies in."""
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = new_game(game, **options)
        for _ in range(rng.randrange(0, 20)):
            if state.is_over():
                break
            state = state.play(rng.choice(state.legal_moves()))
        if not state.is_over():
            states.append(state)
    return states


def rate(search, states: list, simulations: int) -> float:
    """Simulations a second of `search` over `states`, after one search to warm up."""
    search(states[0])
    began = time.perf_counter()
    for state in states:
        search(state)
    return len(states) * simulations / (time.perf_counter() - began)


def main() -> None:
    rows = []
    for game, options, simulations in (
        ("kalah", {}, 20_000),
        ("sungka", {}, 20_000),
        ("tak", {"size": 5}, 2_000),
    ):
        az = AZ(simulations=simulations, seed=1, prove=False, endgame=False)
        states = positions(game, options)
        speed = rate(lambda s, az=az: az.search(s, seconds=1e9), states, simulations)
        rows.append(f"az {game} {speed:.0f}")
    for game in ("kalah", "sungka"):
        mcts = MCTS(seed=1, simulations=20_000)
        rows.append(f"mcts {game} {rate(mcts.evaluate, positions(game, {}), 20_000):.0f}")
    print(" | ".join(rows))


if __name__ == "__main__":
    main()
