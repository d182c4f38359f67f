"""How a DQN is measured while it learns: games in its seat against fixed opponents, the
weights kept by their win rates, and the learning curve's picture."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from mancala.ai.base import Player
from mancala.ai.dqn import DQNPlayer
from mancala.arena.match import play_games
from mancala.arena.openings import random_opening
from mancala.arena.results import Tally
from mancala.game_state import GameState

EVAL_OPPONENTS = ("luck", "max", "exact")
KEEP = {  # which evaluation's weights are saved: the one scoring highest by...
    "best": lambda wins: float(np.mean(wins)),  # the mean win rate
    "worst": lambda wins: float(min(wins)),  # the lowest win rate of the three
    "last": lambda wins: float(np.mean(wins)),  # (any: each replaces the one before)
}


def evaluate(
    forward, variant: str, seat: int, opponent: str, games: int, seed: int, opening: int = 0
) -> dict:
    """The net (epsilon 0.01) in `seat` against `opponent`, from the start or from random
    openings of `opening` moves: mean score, reward and win %."""
    from mancala.ai.registry import make_player

    me = DQNPlayer(seed=seed, epsilon=0.01, forwards={(variant, seat): forward})
    other = make_player(opponent, seed=seed + 1)
    return match_stats(me, other, seat, GameState.new(variant), games, seed, opening=opening)


def plot_curve(curve: list[dict], path: Path, title: str) -> None:
    """Mean score and win % against each evaluation opponent, by episode (PNG)."""
    from mancala.arena.plots import save_figure, subplots

    episodes = [point["episode"] for point in curve]
    figure, (left, right) = subplots(1, 2, figsize=(11, 4))
    for opponent in [key for key, value in curve[0].items() if isinstance(value, dict)]:
        label = opponent.replace("luck", "random")
        left.plot(episodes, [p[opponent]["score"] for p in curve], label=label)
        right.plot(episodes, [p[opponent]["win"] for p in curve], label=label)
    left.set(xlabel="episode", ylabel="mean score (shells in own store)", title="mean score")
    right.set(xlabel="episode", ylabel="win %", title="win rate", ylim=(-2, 102))
    for axes in (left, right):
        axes.grid(alpha=0.3)
        axes.legend()
    figure.suptitle(title)
    save_figure(figure, path)


def opened_name(openings: int) -> str:
    """The curve's name of the evaluation against luck from random openings."""
    return f"luck from {openings}-move openings"


def measured_names(openings: int) -> tuple[str, ...]:
    """The evaluations whose win rates choose the weights kept."""
    return (*EVAL_OPPONENTS, opened_name(openings)) if openings else EVAL_OPPONENTS


def match_stats(
    me: Player,
    other: Player,
    seat: int,
    start: GameState,
    games: int,
    seed: int,
    on_game=None,
    opening: int = 0,
) -> dict[str, float]:
    """`me` in `seat` against `other`, `games` games from `start` (after `opening` random
    moves, a new opening each game): mean score, mean reward (score difference) and win /
    draw %."""
    seated = [me, other] if seat == 0 else [other, me]
    rng = random.Random(seed)
    starts = [random_opening(start, opening, rng)[0] for _ in range(games)]
    records = play_games(seated, starts, seed=seed, on_game=on_game)
    scores = np.array([r["scores"] for r in records])
    tally = Tally().add_records(records, seat)
    return {
        "score": float(scores[:, seat].mean()),
        "reward": float((scores[:, seat] - scores[:, 1 - seat]).mean()),
        "win": tally.win_percent(),
        "draw": tally.percent("draws"),
    }
