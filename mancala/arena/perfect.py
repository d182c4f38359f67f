"""Strength against perfect play: how often each player keeps a position's exact value
(`mancala measure perfect`).

The positions are the whole-game set of Kalah(6,4) (mancala/data/, made by
`mancala solve set`: positions from every stage of real games, solved once), a solved set
of a file, or, with `max_seeds` or other rules than the shipped sets', a set sampled and
solved now: one position from each of `positions` games between randomly paired players
of a mixed pool (seeded), at a random ply once the houses hold at most `max_seeds` seeds,
so that each is solved in a moment. Each player is asked for a move in every position:
the share of its moves that keep the position's value and the seeds lost per move on
average (the value of the best move minus that of the move played), each with its
standard error, and both by stage of the game (seeds left in the houses); the loss of
each move is kept, so that two players compare on the same positions
(`mancala.arena.solved_set.paired`). The held-out set
(mancala/data/kalah-h6-s4-held-out.jsonl) is read by no fit and no gate. With `games`
each player then plays that many of those positions to the end against `solver`, once
from each seat (the player in the seat of the player to move, then in the other seat).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from mancala.ai.registry import make_player
from mancala.arena.match import play_games
from mancala.arena.results import Tally
from mancala.arena.solved_set import POOL, SolvedPosition, load, seeds_in_houses, shipped_path
from mancala.arena.solved_set import move_quality as chosen_quality
from mancala.game_state import GameState
from mancala.games.sowing.solver import Solver, check_solvable, default_max_seeds

DEFAULT_MAX_SEEDS = 32  # a sampled set's positions: solved in a moment


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
