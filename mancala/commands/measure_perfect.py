"""Strength against perfect play: how often each player keeps a position's exact value.

    mancala measure perfect                       # the tournament's default players
    mancala measure perfect greedy minimax:t=0.1 --games 20
    mancala measure perfect greedy --max-seeds 32 --positions 200   # endgames only
    mancala measure perfect nnx2h256 nnxa2h512 --held-out   # the held-out set, paired

The positions are the whole-game set of Kalah(6,4) (mancala/data/, made by
`mancala solve set`: positions from every stage of real games, solved once), or, with
`--max-seeds N` or other board options, a set sampled and solved now: one position from
each of `--positions` games between randomly paired players of a mixed pool (seeded), at
a random ply once the houses hold at most N seeds, so that each is solved in a moment.
Each player is asked for a move in every position; the table gives the share of its
moves that keep the position's value and the seeds lost per move on average (the value of
the best move minus that of the move played), each with its standard error, and both by
stage of the game (seeds left in the houses). With two or more players, each after the
first is compared with the first on the same positions: the difference of the two and
its standard error, which sees a gap far smaller than either figure's own error.
`--held-out` measures on the held-out set (mancala/data/kalah-h6-s4-held-out.jsonl), which
no fit and no gate reads. With `--games N` each player then plays N
of those positions to the end against `solver`, once from each seat (the player in the
seat of the player to move, then in the other seat).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from mancala.ai.registry import check_can_play, check_names, make_player, tournament_players
from mancala.arena.match import play_games
from mancala.arena.results import Tally
from mancala.arena.solved_set import (
    HELD_OUT,
    STAGES,
    SolvedPosition,
    load,
    paired,
    seeds_in_houses,
    shipped_path,
    stage_of,
)
from mancala.arena.solved_set import move_quality as chosen_quality
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.report import Table
from mancala.core.stopping import run_command
from mancala.game_state import GameState
from mancala.games import games_with, new_game
from mancala.games.options import add_game_options, game_options
from mancala.games.sowing.solver import Solver, check_solvable, default_max_seeds

MAX_POSITIONS = 10_000  # positions in the set (each one solved exactly)
MAX_SET_SEEDS = 48  # seeds in the houses of a set position (Kalah(6,4) holds 48)
DEFAULT_MAX_SEEDS = 32  # a sampled set's positions: solved in a moment
POOL = ("luck", "greedy", "exact", "minimax:2", "minimax:6")  # the players of the sample games


def sample_positions(
    start: GameState, count: int, seed: int, max_seeds: int, pool: tuple[str, ...] = POOL
) -> list[GameState]:
    """`count` positions, one from each of `count` games of randomly paired `pool` players
    (seeded): a random ply among those where the houses hold at most `max_seeds` seeds."""
    rng = random.Random(seed)
    players = {spec: make_player(spec, seed=seed + i) for i, spec in enumerate(pool)}
    positions: list[GameState] = []
    while len(positions) < count:
        seats = [players[rng.choice(pool)], players[rng.choice(pool)]]
        state, candidates = start, []
        while not state.is_over():
            if seeds_in_houses(state) <= max_seeds:
                candidates.append(state)
            state = state.play(seats[state.player].choose_move(state))
        if candidates:
            positions.append(rng.choice(candidates))
    return positions


def solve_positions(
    solver: Solver, positions: list[GameState], progress: bool = True
) -> list[SolvedPosition]:
    """Each position with the exact value of every move (mover's view)."""
    return [
        SolvedPosition((), state, solver.solve(state)["moves"])
        for state in tqdm(positions, desc="solving", disable=not progress, file=sys.stderr)
    ]


def move_quality(spec: str, positions: list[SolvedPosition], seed: int = 0) -> dict[str, Any]:
    """The moves of `spec` in `positions`: share keeping the value, seeds lost per move."""
    player = make_player(spec, seed=seed)
    began = time.perf_counter()
    quality = chosen_quality(lambda states: [player.choose_move(s) for s in states], positions)
    return {**quality, "seconds_per_move": (time.perf_counter() - began) / len(positions)}


def against_solver(spec: str, starts: list[GameState], seed: int = 0) -> dict[str, Any]:
    """`spec` plays each start to the end against `solver` from both seats: wins, draws,
    losses and the average final margin (seeds, the player's view), per seat."""
    player, perfect = make_player(spec, seed=seed), make_player("solver", seed=seed)
    out = {}
    for seat_name, mover_is_player in (("to move", True), ("replying", False)):
        tally, margin = Tally(), 0.0
        for state in starts:
            me = state.player if mover_is_player else 1 - state.player
            seats = [player, perfect] if me == 0 else [perfect, player]
            record = play_games(seats, [state])[0]
            tally.add(record["winner"], me)
            margin += (record["scores"][me] - record["scores"][1 - me]) / len(starts)
        out[seat_name] = {**tally.to_dict(), "margin": margin}
    return out


def the_set(
    start: GameState,
    positions: int,
    seed: int,
    max_seeds: int | None,
    progress: bool = True,
    path: Path | None = None,
) -> tuple[str, list[SolvedPosition]]:
    """(a line saying what the set is, its positions): the solved set at `path` (its
    rules must be `start`'s), else the whole-game set shipped for `start`'s rules when no
    `max_seeds` is given, else `positions` sampled and solved now."""
    shipped = shipped_path(start) if max_seeds is None else None
    if path is not None or shipped is not None:
        head, solved = load(path or shipped)
        if head["options"] == start.options:
            done = "" if len(solved) == head["positions"] else f" (of {head['positions']})"
            name = path.name if path else "the whole-game set"
            return f"{name}: {len(solved)} positions{done}, `{head['command']}`", solved
        if path is not None:
            raise ValueError(f"{path} is a set of {head['options']}, not of {start.options}")
    max_seeds = DEFAULT_MAX_SEEDS if max_seeds is None else max_seeds
    total = 2 * start.houses * start.seeds
    solver = Solver(
        start.houses, start.empty_capture, default_max_seeds(start.houses, total), progress=progress
    )
    began = time.perf_counter()
    solved = solve_positions(solver, sample_positions(start, positions, seed, max_seeds), progress)
    took = time.perf_counter() - began
    said = f"{positions} positions (seed {seed}, at most {max_seeds} seeds in the houses)"
    return f"{said}, solved in {took:.1f} s", solved


def run(
    specs: list[str],
    start: GameState,
    *,
    positions: int = 100,
    games: int = 0,
    seed: int = 0,
    max_seeds: int | None = None,
    progress: bool = True,
    set_path: Path | None = None,
) -> dict[str, Any]:
    """The whole measurement as a JSON-safe dict."""
    check_solvable(start)
    if positions < 1 or games < 0:
        raise ValueError("need at least 1 position and 0 or more games")
    described, solved = the_set(start, positions, seed, max_seeds, progress, set_path)
    if games > len(solved):
        raise ValueError(f"--games {games} is more than the {len(solved)} positions")
    results: dict[str, Any] = {}
    starts = [p.state for p in solved[:games]]
    for i, spec in enumerate(tqdm(specs, desc="players", disable=not progress, file=sys.stderr)):
        try:
            results[spec] = move_quality(spec, solved, seed + i)
            results[spec]["against_solver"] = against_solver(spec, starts, seed + i)
        except ValueError as error:  # e.g. a player that only plays from the opening
            results[spec] = {"error": str(error)}
    return {
        "variant": start.game,
        "options": start.options,
        "set": described,
        "positions": len(solved),
        "values": [p.best for p in solved],
        "games_per_seat": games,
        "seed": seed,
        "sample": [p.state.to_dict() for p in solved],
        "players": results,
    }


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
        action="store_const",
        dest="set",
        const=HELD_OUT,
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
        set_path=args.set,
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
