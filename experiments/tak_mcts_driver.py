"""Tak's `mcts` on the numba UCT driver against the generic Python UCT it replaced, both
valuing a leaf by the evaluator: simulations a second on fixed positions, and game pairs
at the same simulations from 2-ply random openings.

    python experiments/tak_mcts_driver.py [PAIRS] [SIMULATIONS] [SIZE]
"""

from __future__ import annotations

import argparse
import random
import time

from mancala.ai.mcts import MCTS
from mancala.ai.search_generic import UCT
from mancala.arena.openings import random_opening
from mancala.arena.pairs import play_pairs
from mancala.games import new_game


def rate(player, states: list, simulations: int) -> float:
    """Simulations a second of `player.evaluate` over `states`, after one to warm up."""
    player.evaluate(states[0])
    began = time.perf_counter()
    for state in states:
        player.evaluate(state)
    return len(states) * simulations / (time.perf_counter() - began)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", type=int, nargs="?", default=100)
    parser.add_argument("simulations", type=int, nargs="?", default=300)
    parser.add_argument("size", type=int, nargs="?", default=5)
    args = parser.parse_args(argv)
    pairs, simulations, size = args.pairs, args.simulations, args.size
    rng = random.Random(1)
    start = new_game("tak", size=size)
    openings = [random_opening(start, 2, rng) for _ in range(pairs)]
    states = [random_opening(start, rng.randrange(2, 20), rng)[0] for _ in range(8)]
    driver = MCTS(seed=1, simulations=simulations)
    generic = UCT(seed=1, simulations=simulations, rollout="evaluator")
    fast, slow = rate(driver, states, simulations), rate(generic, states, simulations)
    print(f"simulations a second, Tak {size}x{size}: driver {fast:,.0f}, generic {slow:,.0f}")
    print(f"ratio driver/generic: {fast / slow:.1f}")
    result = play_pairs(driver, generic, [s for s, _ in openings], [m for _, m in openings], 1)
    print(f"driver against generic, {simulations} simulations each: {result.to_dict()}")


if __name__ == "__main__":
    main()
