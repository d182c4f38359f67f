"""Strength against perfect play: how often each player keeps a position's exact value.

    mancala measure perfect                       # the tournament's default players
    mancala measure perfect greedy minimax:t=0.1 --games 20
    mancala measure perfect greedy --max-seeds 32 --positions 200   # endgames only
    mancala measure perfect nnx2h256 nnxa2h512 --held-out   # the held-out set, paired

The positions, and what is measured: mancala/arena/perfect.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mancala.ai.registry import check_can_play, check_names, tournament_players
from mancala.arena.perfect import DEFAULT_MAX_SEEDS, run
from mancala.arena.solved_set import HELD_OUT, STAGES, paired, set_file, stage_of
from mancala.commands.options import add_game_options, game_options
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.report import Table
from mancala.core.stopping import run_command
from mancala.game_state import GameState
from mancala.games import games_with, new_game

MAX_POSITIONS = 10_000  # positions in the set (each one solved exactly)
MAX_SET_SEEDS = 48  # seeds in the houses of a set position (Kalah(6,4) holds 48)


def quality_table(result: dict[str, Any]) -> str:
    """Markdown: each player's share of value-keeping moves and seeds lost per move, with
    their standard errors."""
    table = Table(["player", "keeps value %", "seeds lost / move", "ms / move"])
    ranked = sorted(result["players"].items(), key=lambda kv: kv[1].get("seeds_lost", 1e9))
    for spec, r in ranked:
        if "error" in r:
            table.add(spec, f"n/a: {r['error']}", "", "")
            continue
        kept = f"{100 * r['kept']:.1f} ± {100 * r['kept_se']:.1f}"
        lost = f"{r['seeds_lost']:.2f} ± {r['seeds_lost_se']:.2f}"
        table.add(spec, kept, lost, f"{1000 * r['seconds_per_move']:.3g}")
    return table.markdown()


def stage_table(result: dict[str, Any]) -> str:
    """Markdown: keeps value % and seeds lost a move of each player by stage of the game."""
    stages = [stage_of(low) for low, _ in STAGES]
    players = [(spec, r) for spec, r in result["players"].items() if "error" not in r]
    present = [s for s in stages if any(s in r["by_stage"] for _, r in players)]
    head = [f"{s} ({players[0][1]['by_stage'][s]['positions']})" for s in present]
    table = Table(["player (keeps % ± its error / seeds lost)", *head])
    for spec, r in players:
        cells = []
        for stage in present:
            q = r["by_stage"].get(stage)
            if q is None:
                cells.append("")
                continue
            cells.append(
                f"{100 * q['kept']:.1f} ± {100 * q['kept_se']:.1f} / {q['seeds_lost']:.2f}"
            )
        table.add(spec, *cells)
    return table.markdown()


def paired_table(result: dict[str, Any]) -> str:
    """Markdown: each player after the first against the first, on the same positions."""
    players = [(spec, r) for spec, r in result["players"].items() if "error" not in r]
    first, base = players[0]
    table = Table([f"player - {first}", "keeps value (points)", "seeds lost / move"])
    for spec, r in players[1:]:
        d = paired(r["losses"], base["losses"])
        kept = f"{100 * d['kept']:+.2f} ± {100 * d['kept_se']:.2f}"
        table.add(spec, kept, f"{d['seeds_lost']:+.3f} ± {d['seeds_lost_se']:.3f}")
    return table.markdown()


def solver_table(result: dict[str, Any]) -> str:
    """Markdown: each player's wins/draws/losses and mean margin against solver per seat,
    after the first row: what perfect play gets (the values of the positions played)."""
    table = Table(["player", "as mover: W-D-L", "margin", "as replier: W-D-L", "margin"])
    values = result["values"][: result["games_per_seat"]]
    if values:
        wdl = [sum(v > 0 for v in values), sum(v == 0 for v in values), sum(v < 0 for v in values)]
        mean = sum(values) / len(values)
        won, lost = f"{wdl[0]}-{wdl[1]}-{wdl[2]}", f"{wdl[2]}-{wdl[1]}-{wdl[0]}"
        table.add("(perfect play)", won, f"{mean:+.1f}", lost, f"{-mean:+.1f}")
    for spec, r in result["players"].items():
        if "error" in r:
            continue
        cells = []
        for seat in ("to move", "replying"):
            t = r["against_solver"][seat]
            cells += [f"{t['wins']}-{t['draws']}-{t['losses']}", f"{t['margin']:+.1f}"]
        table.add(spec, *cells)
    return table.markdown()


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala measure perfect", __doc__)
    parser.add_argument("players", nargs="*", help="player names (default: the tournament's)")
    parser.add_argument(
        "--positions", type=int_in(1, MAX_POSITIONS), default=100, help="positions in the set"
    )
    parser.add_argument(
        "--games", type=int_in(0, MAX_POSITIONS), default=0, help="starts played against solver"
    )
    parser.add_argument(
        "--max-seeds",
        type=int_in(1, MAX_SET_SEEDS),
        help=f"sample a set now, at most this many seeds in the houses ({DEFAULT_MAX_SEEDS})",
    )
    parser.add_argument(
        "--set",
        type=Path,
        metavar="FILE",
        help="a solved set of mancala solve set to measure on",
    )
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="measure on the held-out set, which no fit and no gate reads",
    )
    parser.add_argument("--seed", type=int, default=0)
    add_game_options(parser, games_with("solver"))
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    args = parser.parse_args(argv)
    try:
        start = new_game(args.variant, **game_options(args))
        specs = args.players or [
            spec for spec in tournament_players(args.variant, start) if spec != "solver"
        ]
        check_names(specs)
        check_can_play(specs, start)
    except ValueError as error:
        return fail("mancala measure perfect", str(error))
    kept = "nothing is written until the end"
    return run_command("mancala measure perfect", lambda: _report(args, specs, start), kept)


def _report(args: argparse.Namespace, specs: list[str], start: GameState) -> int:
    """Measure the players of `args` and print the tables (or JSON)."""
    result = run(
        specs,
        start,
        positions=args.positions,
        games=args.games,
        seed=args.seed,
        max_seeds=args.max_seeds,
        set_path=set_file(start, HELD_OUT) if args.held_out else args.set,
    )
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    rule = ", empty capture" if start.empty_capture else ""
    print(f"kalah({start.houses},{start.seeds}){rule}: {result['set']}\n")
    print(quality_table(result))
    print("\nBy stage of the game (seeds in the houses; positions):\n")
    print(stage_table(result))
    if sum("error" not in r for r in result["players"].values()) > 1:
        print("\nPaired, on the same positions (the difference and its standard error):\n")
        print(paired_table(result))
    if not args.games:
        return 0
    print(
        f"\nAgainst solver: {args.games} of those positions played to the end from each seat "
        "(W-D-L and mean final margin in seeds, the player's view)\n"
    )
    print(solver_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
