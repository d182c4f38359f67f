"""The Sungka paper's Tables II and III for our DQN: average reward and win % against
random (luck), max, exact and itself, as the first and as the second player.

    mancala measure dqn                       # Sungka, 1000 games a row, epsilon 0.01
    mancala measure dqn --variant kalah --games 200
    mancala measure dqn --openings 2          # each game after 2 random first moves

Every game starts from the opening (with `--openings N`, after N random moves, a new
draw each game: the paper's figures are for the opening alone); the DQN plays with
epsilon 0.01 (the paper's test setting), which is also what varies the games against the
deterministic max and exact.
"Average reward" is the DQN's score minus the opponent's at the end, the sum of the
per-move rewards it was trained on. "Self" is `dqn` against `dqn`: the first-seat net
against the second-seat net (the paper does not say which second player it used).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from mancala.ai.dqn import SEATS, DQNPlayer
from mancala.ai.registry import make_player
from mancala.core.cli import add_alias, command_parser, float_in, int_in
from mancala.core.paths import MODELS_DIR
from mancala.core.report import Table
from mancala.core.stopping import run_command
from mancala.game_state import KALAH, SUNGKA, GameState
from mancala.learn.dqn import match_stats

MAX_GAMES = 1_000_000  # games a row
OPPONENTS = {"random": "luck", "max": "max", "exact": "exact", "self": "dqn"}
# The paper's win % (Tables II and III); None where the paper gives no figure.
PAPER_GAME = SUNGKA  # the game of the paper whose figures stand beside ours
PAPER_WIN = {
    "first": {"random": 99.4, "max": 99.5, "exact": 97.9, "self": 98.6},
    "second": {"random": 73.5, "max": 0.0, "exact": 0.0, "self": None},
}


def evaluate_tables(
    variant: str = SUNGKA,
    games: int = 1000,
    epsilon: float = 0.01,
    seed: int = 0,
    models_dir: str | Path = MODELS_DIR,
    progress: bool = True,
    opening: int = 0,
) -> dict[str, dict[str, dict[str, float]]]:
    """{"first"|"second": {opponent: stats}} for the nets of `variant` in `models_dir`,
    from the start or after `opening` random moves."""
    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")
    start = GameState.new(variant)
    bar = tqdm(total=8 * games, unit="game", disable=not progress, file=sys.stderr)
    tables: dict[str, dict[str, dict[str, float]]] = {}
    for seat, seat_name in enumerate(SEATS):
        tables[seat_name] = {}
        for k, (label, spec) in enumerate(OPPONENTS.items()):
            me = DQNPlayer(seed=seed + k, epsilon=epsilon, models_dir=models_dir)
            if spec == "dqn":
                other = DQNPlayer(seed=seed + 100 + k, epsilon=epsilon, models_dir=models_dir)
            else:
                other = make_player(spec, seed=seed + 100 + k)
            me.name, other.name = "dqn", spec
            tables[seat_name][label] = match_stats(
                me, other, seat, start, games, seed, lambda _: bar.update(), opening
            )
    bar.close()
    return tables


def format_tables(tables: dict, variant: str, games: int, epsilon: float, opening: int = 0) -> str:
    """Markdown tables in the paper's layout, ours beside the paper's win % (which is
    for games from the start)."""
    start = f", from {opening}-move random openings" if opening else ""
    shown = []
    for number, seat_name in (("II", "first"), ("III", "second")):
        title = (
            f"Table {number} ({variant}): DQN as the {seat_name} player, {games} games a row, "
            f"epsilon {epsilon}{start}"
        )
        table = Table(["opponent", "average reward", "win %", "draw %", "paper win %"], title=title)
        for label, stats in tables[seat_name].items():
            paper = PAPER_WIN[seat_name][label] if variant == PAPER_GAME and not opening else None
            table.add(
                label,
                f"{stats['reward']:+.1f}",
                f"{stats['win']:.1f}",
                f"{stats['draw']:.1f}",
                "-" if paper is None else f"{paper:.1f}",
            )
        shown.append(table.markdown())
    return "\n\n".join(shown) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala measure dqn", __doc__)
    parser.add_argument("--variant", choices=(SUNGKA, KALAH), default=SUNGKA)
    parser.add_argument(
        "--games", type=int_in(1, MAX_GAMES), default=1000, help="games a row (paper: 1000)"
    )
    parser.add_argument("--epsilon", type=float_in(0.0, 1.0), default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="weights folder")
    add_alias(parser, "--models-dir", "models", type=Path)
    parser.add_argument(
        "--openings", type=int_in(0, 20), default=0, help="random first moves of each game"
    )
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args(argv)
    return run_command("mancala measure dqn", lambda: _report(args), "nothing is written")


def _report(args: argparse.Namespace) -> int:
    """Play the tables of `args` and print them (or JSON)."""
    began = time.perf_counter()
    tables = evaluate_tables(
        args.variant,
        args.games,
        args.epsilon,
        args.seed,
        args.models,
        not args.json,
        args.openings,
    )
    if args.json:
        result: dict[str, Any] = {
            "variant": args.variant,
            "games": args.games,
            "openings": args.openings,
            "tables": tables,
        }
        print(json.dumps(result, indent=1))
    else:
        print(format_tables(tables, args.variant, args.games, args.epsilon, args.openings))
        print(f"{8 * args.games} games in {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
