"""The tournament as a library: a round robin where every pair of players plays N games
in each seat (`run_tournament`), its win-rate table and ratings (`python
mancala/commands/tournament.py` runs and prints it).

Deterministic players would replay one game forever, so game i of every pairing starts
from opening i: a few random plies drawn once per tournament from the seed. Both games
of a pair of seats start from the same opening, so neither seat is favoured by it.
Random plies can also give one side a won game before either player has moved;
`--balanced SEEDS` keeps only openings that a depth-12 minimax search judges within
SEEDS seeds of even, so the games measure the players rather than the dice.
`--opening-set NAME` plays the openings of a shipped fixed set instead
(mancala/arena/opening_sets.py), the same every time. Each pairing's two games from one
opening are a game pair, scored as engine testing scores them (mancala/arena/pairs.py):
the pair table gives each pairing's score, its standard error over distinct openings,
the pentanomial counts and the mean margin.
Every game is played by players made for it and seeded by its own seed, so `--workers N`
(N games at once on Ray; `--address` joins a cluster, docs/ray.md) gives the same games.
"""

from __future__ import annotations

import random
import sys
import time
from itertools import combinations
from pathlib import Path
from typing import Any

from tqdm import tqdm

from mancala.ai.registry import (
    make_player,
)
from mancala.arena.match import ply_limit
from mancala.arena.openings import BALANCE_DEPTH, draw_openings
from mancala.arena.pairs import Pairs, record_margin
from mancala.arena.parallel import GameJob, Seat, Workers
from mancala.arena.ratings import fit_ratings
from mancala.arena.records import append_games
from mancala.arena.results import Tally, points
from mancala.core.report import Table
from mancala.game_state import GameState
from mancala.games import Capability, capabilities, new_game
from mancala.games.replay import positions

MAX_PLIES = 40  # random plies of an opening; more would be a random game, not an opening
WRITE_EVERY = 100  # finished games appended to --record at once


class Timed:
    """A player seen through a stopwatch: adds its thinking time and moves to `clock`
    (mancala bench's; the tournament's games are timed by mancala.arena.parallel)."""

    def __init__(self, player: Any, clock: dict[str, list[float]]) -> None:
        self.player, self.clock, self.name = player, clock, player.name

    def choose_moves(self, states: list[GameState]) -> list[int]:
        began = time.perf_counter()
        moves = self.player.choose_moves(states)
        self.clock[self.name][0] += time.perf_counter() - began
        self.clock[self.name][1] += len(states)
        return moves


def run_tournament(
    specs: list[str],
    games: int,
    start: GameState,
    *,
    seed: int = 0,
    plies: int = 4,
    balanced: int | None = None,
    record: Path | None = None,
    progress: bool = True,
    workers: Workers | None = None,
    openings: list[list[int]] | None = None,
    opening_set: str | None = None,
    pairings: list[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """Play the round robin on `workers` (default: here); a JSON-safe dict of openings,
    results and ratings. Each game is seeded by its own seed, drawn from `seed`.

    results[a][b]: a's wins, draws, losses and games against b over both seats;
    first[a][b]: the same for the games where a moved first.
    pairs["a vs b"]: a's game pairs against b (`Pairs.to_dict`), and by_opening["a vs b"]
    the same pairs opening by opening (`played_pairs` reads them). `openings`: the
    openings to play (the first `games` of them; `opening_set` names their set), instead
    of random ones. `pairings`: the pairs of players that meet (default: every two).
    """
    if len(set(specs)) != len(specs):
        raise ValueError("a player is named twice")
    if len(specs) < 2:
        raise ValueError("a tournament needs at least two players")
    if games < 1:
        raise ValueError("the number of games must be at least 1")
    seats = [Seat.of(make_player(spec, seed=seed + i), start=start) for i, spec in enumerate(specs)]
    if openings is None:
        openings = draw_openings(start, games, plies, seed, balanced)
    elif len(openings) < games:
        raise ValueError(f"{games} games a seat, but {len(openings)} openings in the set")
    openings = [list(moves) for moves in openings[:games]]
    pairs = list(combinations(specs, 2)) if pairings is None else [tuple(p) for p in pairings]
    if any(len(set(pair) & set(specs)) != 2 for pair in pairs):
        raise ValueError(f"each pairing must name two of the players {', '.join(specs)}")
    seeds, place = random.Random(seed), {spec: i for i, spec in enumerate(specs)}
    max_plies = ply_limit(start)
    jobs = [
        GameJob((place[one], place[two]), start, tuple(moves), seeds.getrandbits(30), max_plies)
        for a, b in pairs
        for one, two in ((a, b), (b, a))
        for moves in openings
    ]
    results = {a: {b: Tally() for b in specs if b != a} for a in specs}
    first = {a: {b: Tally() for b in specs if b != a} for a in specs}
    played: dict[tuple[str, str], dict[int, list]] = {pair: {} for pair in pairs}
    clock = {spec: [0.0, 0] for spec in specs}
    bar = tqdm(total=len(jobs), unit="game", disable=not progress, file=sys.stderr)
    began = time.perf_counter()
    unwritten: list[dict[str, Any]] = []
    unfinished = 0  # games stopped at match.GAME_PLIES, counted as draws
    try:
        for done in (workers or Workers(1)).play(seats, jobs):
            one, two = (specs[i] for i in jobs[done.index].seats)
            _count(results, first, one, two, done.record["winner"])
            _pair(played, one, two, done.index % len(openings), done.record)
            unfinished += bool(done.record.get("unfinished"))
            for spec, seconds, moves in zip((one, two), done.seconds, done.moves):
                clock[spec][0] += seconds
                clock[spec][1] += moves
            bar.update()
            if record:
                unwritten.append(done.record)
                if len(unwritten) >= WRITE_EVERY:
                    append_games(record, unwritten)
                    unwritten = []
    finally:  # stopped or not, every finished game is kept
        if record:
            append_games(record, unwritten)
    bar.close()
    whole = {  # the pairs whose two games were both played (a stopped run leaves halves out)
        f"{a} vs {b}": (index, _pairs_of(openings, games, index))
        for (a, b), games in played.items()
        if (index := sorted(i for i, (got, _) in games.items() if None not in got))
    }
    ratings = fit_ratings(
        specs,
        {(a, b): (results[a][b].wins, results[a][b].draws, results[a][b].losses) for a, b in pairs},
    )
    return {
        "variant": start.game,
        "options": dict(start.options),
        "games_per_seat": games,
        "seed": seed,
        "opening_plies": plies,
        "balanced": balanced,
        "openings": openings,
        "players": specs,
        "results": _as_dicts(results),
        "first": _as_dicts(first),
        "opening_set": opening_set,
        "pairs": {name: pairs.to_dict() for name, (_, pairs) in whole.items()},
        "by_opening": {
            name: {"index": index, "points": pairs.points, "margins": pairs.margins}
            for name, (index, pairs) in whole.items()
        },
        "ratings": {name: {"rating": r, "error": e} for name, (r, e) in ratings.items()},
        "seconds_per_move": {s: t / max(n, 1) for s, (t, n) in clock.items()},
        "seconds": time.perf_counter() - began,
        "unfinished": unfinished,
    }


def _count(results: dict, first: dict, one: str, two: str, winner: int | None) -> None:
    """Add a game of `one` (moving first) against `two` to both tables."""
    results[one][two].add(winner, 0)
    first[one][two].add(winner, 0)
    results[two][one].add(winner, 1)


def _pair(played: dict, one: str, two: str, opening: int, record: dict[str, Any]) -> None:
    """Keep the game of `one` (first) against `two` from `opening` in its pairing's pair."""
    a, seat = ((one, two), 0) if (one, two) in played else ((two, one), 1)
    got = played[a].setdefault(opening, [[None, None], [None, None]])
    got[0][seat], got[1][seat] = points(record["winner"], seat), record_margin(record, seat)


def _pairs_of(openings: list[list[int]], games: dict[int, list], whole: list[int]) -> Pairs:
    """The pairs of the openings numbered `whole`."""
    return Pairs(
        [tuple(openings[i]) for i in whole],
        [games[i][0] for i in whole],
        [games[i][1] for i in whole],
    )


def played_pairs(result: dict[str, Any], one: str, two: str) -> Pairs:
    """`one`'s game pairs against `two` in a tournament's `result`, opening by opening
    (the pairs whose two games were both played)."""
    kept = result["by_opening"][f"{one} vs {two}"]
    openings = [tuple(result["openings"][i]) for i in kept["index"]]
    return Pairs(openings, kept["points"], kept["margins"])


def pair_table(result: dict[str, Any]) -> str:
    """Markdown: each pairing's game pairs, the first player's view."""
    table = Table(["pairing", "pairs", "score %", "±", "pentanomial 0-2", "margin"])
    for name, pairs in result.get("pairs", {}).items():
        margin = pairs["margin"]
        table.add(
            name,
            pairs["pairs"],
            f"{100 * pairs['score']:.1f}",
            f"{100 * pairs['standard_error']:.1f}",
            " ".join(map(str, pairs["pentanomial"])),
            "" if margin is None else f"{margin:+.2f}",
        )
    return table.markdown()


def _as_dicts(table: dict[str, dict[str, Tally]]) -> dict[str, dict[str, dict[str, int]]]:
    return {a: {b: tally.to_dict() for b, tally in row.items()} for a, row in table.items()}


def win_rate_table(result: dict[str, Any]) -> str:
    """Markdown: the row player's win % against each column player (draws are not wins)."""
    specs = result["players"]
    table = Table(["wins % (row vs column)", *specs, "all"])
    for a in specs:
        tallies = {b: Tally.from_dict(t) for b, t in result["results"][a].items()}
        cells = [f"{tallies[b].win_percent():.0f}" if b in tallies else "-" for b in specs]
        everyone = sum(tallies.values(), Tally())
        table.add(a, *cells, f"{everyone.win_percent():.0f}")
    return table.markdown()


def rating_table(result: dict[str, Any]) -> str:
    """Markdown: players by rating (Elo scale, mean 1500) with one standard error."""
    ranked = sorted(result["ratings"].items(), key=lambda kv: -kv[1]["rating"])
    table = Table(["rank", "player", "rating", "±", "ms/move"])
    for rank, (name, r) in enumerate(ranked, 1):
        per_move = result["seconds_per_move"][name]
        table.add(rank, name, f"{r['rating']:.0f}", f"{r['error']:.0f}", f"{1000 * per_move:.3g}")
    return table.markdown()


def describe_openings(result: dict[str, Any], limit: int = 10) -> str:
    """The openings in words (house letters of each ply), all of them up to `limit`."""
    openings = result["openings"]
    head = (
        f"Game i of every pairing starts from opening i: {len(openings)} opening(s) of "
        f"{result['opening_plies']} random plies (seed {result['seed']}), each played once "
        f"in each seat."
    )
    if result.get("opening_set"):
        head = (
            f"Game i of every pairing starts from opening i of the set "
            f"{result['opening_set']}: {len(openings)} opening(s), each played once in each seat."
        )
    if result.get("balanced") is not None:
        head += (
            f" Only openings that minimax:{BALANCE_DEPTH} judges within "
            f"{result['balanced']} seeds of even."
        )
    if len(openings) > limit:
        return head + " --json lists them all."
    start = new_game(result["variant"], **result["options"])
    shown = "; ".join(
        f"{i}: {' '.join(_move_names(start, moves)) or '(none)'}"
        for i, moves in enumerate(openings, 1)
    )
    if Capability.SOWING in capabilities(start):
        return f"{head}\nOpenings (houses in sowing order from the mover's side): {shown}"
    return f"{head}\nOpenings: {shown}"


def _move_names(start: GameState, moves: list[int]) -> list[str]:
    """The names of `moves` played from `start`, each in its position."""
    return [state.move_name(move) for state, move in zip(positions(start, moves), moves)]
