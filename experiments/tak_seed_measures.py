"""The Tak seed's measure of MCTS, beside the lab's: `mcts` with each leaf value plays
random moves (`luck`) for GAMES games a board, seats alternating, from the opening; a win
rewards 1, a draw or loss 0 (the seed's reward). Prints the cumulative reward after the
first 80% of the games and after all of them, and the seconds a move.

    python experiments/tak_seed_measures.py [GAMES] [SIMULATIONS]
"""

from __future__ import annotations

import argparse
import sys
import time

from mancala.ai import make_player
from mancala.arena.match import play_games
from mancala.core.report import Table
from mancala.games import new_game
from mancala.games.tak.sarsa import shipped_sizes

ROLLOUTS = ("random", "weighted", "sarsa", "evaluator")


def measure(size: int, rollout: str, games: int, simulations: int) -> list:
    """[cumulative reward at 80% of the games, at the end, seconds a move of mcts]."""
    player = make_player(f"mcts:{simulations},rollout={rollout}", seed=1)
    luck = make_player("luck", seed=2)
    start, rewards, moves, thinking = new_game("tak", size=size), [], 0, 0.0

    def timed(_game, _state, _move):
        nonlocal moves
        moves += 1

    for game in range(games):
        seat = game % 2
        seats = [player, luck] if seat == 0 else [luck, player]
        began = time.perf_counter()
        [record] = play_games(seats, [start], seed=game, on_move=timed)
        thinking += time.perf_counter() - began
        rewards.append(1 if record["winner"] == seat else 0)
    early = sum(rewards[: games * 4 // 5])
    return [early, sum(rewards), f"{thinking / max(1, moves // 2):.4f}"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", type=int, nargs="?", default=100)
    parser.add_argument("simulations", type=int, nargs="?", default=32)
    args = parser.parse_args(argv)
    games, simulations = args.games, args.simulations
    table = Table(
        ["board", "leaf value", f"reward, games 1-{games * 4 // 5}", f"reward, all {games}",
         "s a move"],
        title=f"mcts:{simulations} against luck, {games} games a row, seats alternating",
    )  # fmt: skip
    for size in (3, 4, 5):
        for rollout in ROLLOUTS:
            if rollout == "sarsa" and size not in shipped_sizes():
                continue
            table.add(f"{size}x{size}", rollout, *measure(size, rollout, games, simulations))
            print(table.rows[-1], file=sys.stderr, flush=True)
    print(table.markdown())


if __name__ == "__main__":
    main()
