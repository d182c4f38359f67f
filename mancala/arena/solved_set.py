"""The whole-game set: positions from every stage of real Kalah games, solved exactly.

A set is a JSONL file. Its first line is a header (what the set is and the command that
made it); each further line is one position: the moves that lead to it from the start
(so it replays through the rules), its ply, the seeds left in its houses and the exact
value of every legal move (the final store difference for the mover, perfect play from
both sides), with the nodes and seconds the proof took.

The positions come from games between randomly paired players of a mixed pool (seeded).
Position i of n is taken from game i at the fraction (i + u) / n of the game's length (u
uniform in [0, 1)), so the set covers the game evenly from the first move to the last.
Solving goes from the endgame to the opening (the early positions take minutes each),
appends each position the moment it is proved, and resumes where it stopped.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mancala.arena.records import append_games
from mancala.core.paths import DATA_DIR
from mancala.game_state import GameState
from mancala.games.replay import replayed

FORMAT = "mancala-solved-set"
POOL = ("luck", "greedy", "exact", "minimax:2", "minimax:6")  # the players of the games
# the kinds of set shipped for a board, each a file of mancala/data/ whose header names it
WHOLE_GAME = "whole-game"  # positions of every stage of real games
HELD_OUT = "held-out"  # read by no fit and no gate
GATE_SET = "gate"  # what the promotion gate meets candidates on


@dataclass(frozen=True)
class SolvedPosition:
    """One position of a set and the exact value of each of its legal moves."""

    moves: tuple[int, ...]  # from the start
    state: GameState
    values: dict[int, int]

    @property
    def best(self) -> int:
        return max(self.values.values())

    @property
    def key(self) -> tuple:
        """The position alone (board and mover): equal for every copy a set holds."""
        return tuple(self.state.board), self.state.player

    def loss(self, move: int) -> int:
        """Seeds the mover gives away by `move` (0 when it keeps the value)."""
        return self.best - self.values[move]


def seeds_in_houses(state: GameState) -> int:
    return sum(state.side(0)) + sum(state.side(1))


def sample_paths(
    start: GameState, count: int, seed: int, pool: tuple[str, ...] = POOL
) -> list[list[int]]:
    """The move paths (from `start`) of `count` positions, one from each of `count` games
    of randomly paired `pool` players, spread evenly over the games' stages."""
    from mancala.ai.registry import make_player

    rng = random.Random(seed)
    players = {spec: make_player(spec, seed=seed + i) for i, spec in enumerate(pool)}
    paths = []
    for i in range(count):
        seats = [players[rng.choice(pool)], players[rng.choice(pool)]]
        state, moves = start, []
        while not state.is_over():
            moves.append(seats[state.player].choose_move(state))
            state = state.play(moves[-1])
        ply = int((i + rng.random()) / count * len(moves))
        paths.append(moves[:ply])
    return paths


def header(start: GameState, count: int, seed: int, command: str) -> dict[str, Any]:
    return {
        "kind": "header",
        "format": FORMAT,
        "variant": start.variant,
        "options": start.options,
        "positions": count,
        "seed": seed,
        "pool": list(POOL),
        "command": command,
    }


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of `path`, one a line; a cut-short last line is skipped."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                yield obj


Solved = Iterator[tuple[int, dict, float]]  # (which of the states, its result, seconds)


def solved_in_turn(states: list[GameState], solve: Callable[[GameState], dict]) -> Solved:
    """`solve` of each of `states` in turn, timed."""
    for k, state in enumerate(states):
        began = time.perf_counter()
        yield k, solve(state), time.perf_counter() - began


def build(
    path: Path,
    start: GameState,
    count: int,
    seed: int,
    command: str,
    solve: Callable[[GameState], dict],
    progress: Callable[[int, int, dict], None] | None = None,
    solve_many: Callable[[list[GameState]], Solved] | None = None,
) -> int:
    """Solve the set's positions not yet in `path` (from the endgame back), appending
    each as it is proved; how many were solved now. `solve_many` (the states, in that
    order of priority) may solve several at once, yielding each as it is proved; else
    `solve` takes them in turn. A position met again is solved once. ValueError when
    `path` holds another set."""
    wanted = header(start, count, seed, command)
    done: set[int] = set()
    if path.is_file() and path.stat().st_size:
        lines = list(read_lines(path))
        found = lines[0] if lines else {}
        same = ("format", "variant", "options", "positions", "seed", "pool")
        if any(found.get(key) != wanted[key] for key in same):
            raise ValueError(f"{path} holds another set (its header: {found}); choose another file")
        done = {line["index"] for line in lines[1:] if "index" in line}
    else:
        append_games(path, [wanted])
    paths = sample_paths(start, count, seed)
    known = {}  # a position (its board and mover) -> the line that holds its values
    if done:
        for line in lines[1:]:
            if line.get("index") in done and "values" in line and "moves" in line:
                state = replayed(start, line["moves"])
                known.setdefault((state.board, state.player), line)
    todo = sorted(
        (i for i in range(count) if i not in done),
        key=lambda i: seeds_in_houses(replayed(start, paths[i])),
    )
    states = {i: replayed(start, paths[i]) for i in todo}
    first: dict[tuple, int] = {}  # a position to solve -> the index solved for it
    again: dict[int, list[int]] = {}  # that index -> the later ones of the same position
    for i in todo:
        key = (states[i].board, states[i].player)
        if key in known or key in first:
            again.setdefault(known[key]["index"] if key in known else first[key], []).append(i)
        else:
            first[key] = i
    written = 0

    def write(line: dict) -> None:
        nonlocal written
        append_games(path, [line])
        written += 1
        if progress:
            progress(written, len(todo), line)

    def write_twins(of: dict) -> None:
        for i in again.pop(of["index"], []):
            twin = {"index": i, "moves": paths[i], "ply": len(paths[i])}
            twin |= {"seeds": of["seeds"], "values": of["values"], "nodes": 0, "seconds": 0.0}
            write(twin | {"same_as": of["index"]})

    for line in known.values():
        write_twins(line)
    unique = list(first.values())
    solved = solve_many or (lambda states: solved_in_turn(states, solve))
    for k, result, seconds in solved([states[i] for i in unique]):
        i = unique[k]
        line = {
            "index": i,
            "moves": paths[i],
            "ply": len(paths[i]),
            "seeds": seeds_in_houses(states[i]),
            "values": {str(m): v for m, v in result["moves"].items()},
            "nodes": result["nodes"],
            "seconds": round(seconds, 3),
        }
        if "record" in result:  # proved by a long solve, not here
            line["record"] = Path(result["record"]).name
        write(line)
        write_twins(line)
    return len(todo)


def load(path: Path) -> tuple[dict[str, Any], list[SolvedPosition]]:
    """(header, solved positions in index order) of the set in `path`. ValueError when
    the file is missing or is not a set; a damaged line is left out."""
    if not path.is_file():
        raise ValueError(f"no solved set at {path}: make it with `mancala solve set`")
    lines = list(read_lines(path))
    if not lines or lines[0].get("format") != FORMAT:
        raise ValueError(f"{path} is not a solved set")
    head = lines[0]
    start = GameState.new(head["variant"], **head["options"])
    positions = {}
    for line in lines[1:]:
        try:
            state = replayed(start, line["moves"])
            values = {int(m): int(v) for m, v in line["values"].items()}
        except (KeyError, TypeError, ValueError):
            continue
        if sorted(values) == state.legal_moves():
            positions[line["index"]] = SolvedPosition(tuple(line["moves"]), state, values)
    return head, [positions[i] for i in sorted(positions)]


def shipped_path(start: Any, kind: str = WHOLE_GAME) -> Path | None:
    """The set of `kind` ("whole-game", "gate", "held-out") shipped in mancala/data/ for
    `start`'s game and rules, or None when none ships for them (the set's header names
    its game and rules)."""
    for path in sorted(DATA_DIR.glob(f"*-{kind}.jsonl")):
        head = next(read_lines(path), {})
        if head.get("variant") == start.game and head.get("options") == start.options:
            return path
    return None


def set_file(start: Any, kind: str = WHOLE_GAME) -> Path:
    """The file of the set of `kind` of `start`'s board: the one shipped (`shipped_path`),
    else the name a new one takes in mancala/data/."""
    from mancala.nn_lib.boards import board_name

    named = DATA_DIR / f"{board_name(start.game, start.options)}-{kind}.jsonl"
    return shipped_path(start, kind) or named


def shipped_set(start: Any, kind: str = WHOLE_GAME) -> list[SolvedPosition]:
    """The positions of the set of `kind` shipped for `start`'s game and rules, or []."""
    path = shipped_path(start, kind)
    try:
        return [] if path is None else load(path)[1]
    except ValueError:
        return []


def move_losses(choose: Callable[[list[GameState]], list[int]], positions) -> list[int]:
    """Seeds lost by each move a chooser of moves picks in `positions` (0: value kept)."""
    moves = choose([p.state for p in positions])
    return [p.loss(m) for p, m in zip(positions, moves)]


STAGES = ((0, 24), (25, 30), (31, 36), (37, 42), (43, 10_000))  # seeds in the houses


def stage_of(seeds: int) -> str:
    """The stage of the game a position with `seeds` in its houses is in ("25-30").

    >>> stage_of(0), stage_of(30), stage_of(48)
    ('0-24', '25-30', '43+')
    """
    for low, high in STAGES:
        if low <= seeds <= high:
            return f"{low}-{high}" if high < STAGES[-1][1] else f"{low}+"
    raise ValueError(f"a position cannot hold {seeds} seeds")


def mean_se(values: list[float], groups: Sequence[Hashable] | None = None) -> tuple[float, float]:
    """The mean of `values` and its standard error (0 for fewer than two). With `groups`
    (a key a value: a position's `key`), the error is clustered by group: a position a
    set holds many times (the start, 3% of a whole-game set) is one piece of evidence
    its copies repeat, not many, so a gain made in a few repeated positions shows as the
    noise it is.

    >>> mean_se([1.0, 1.0, 0.0, 0.0])[1] < mean_se([1.0, 1.0, 0.0, 0.0], "aabb")[1]
    True
    >>> mean_se([1.0, 0.0, 1.0, 0.0]) == mean_se([1.0, 0.0, 1.0, 0.0], "abcd")
    True
    """
    n = len(values)
    mean = sum(values) / n
    if groups is None:
        if n < 2:
            return mean, 0.0
        variance = sum((v - mean) ** 2 for v in values) / (n - 1)
        return mean, (variance / n) ** 0.5
    sums: dict[Hashable, float] = {}
    for value, group in zip(values, groups, strict=True):
        sums[group] = sums.get(group, 0.0) + value - mean
    clusters = len(sums)
    if clusters < 2:
        return mean, 0.0
    spread = sum(total**2 for total in sums.values()) * clusters / (clusters - 1)
    return mean, spread**0.5 / n


def quality_of(losses: list[int]) -> dict[str, float]:
    """Share of value-keeping moves and seeds lost per move, each with its standard error.

    >>> quality_of([0, 0, 2, 0])["kept"], quality_of([0, 0, 2, 0])["seeds_lost"]
    (0.75, 0.5)
    """
    kept, kept_se = mean_se([float(loss == 0) for loss in losses])
    lost, lost_se = mean_se([float(loss) for loss in losses])
    return {"kept": kept, "kept_se": kept_se, "seeds_lost": lost, "seeds_lost_se": lost_se}


def move_quality(choose: Callable[[list[GameState]], list[int]], positions) -> dict[str, Any]:
    """Share of value-keeping moves and seeds lost per move of a chooser of moves, with
    their standard errors, the same by stage of the game, and the loss of each move."""
    losses = move_losses(choose, positions)
    stages: dict[str, list[int]] = {}
    for p, loss in zip(positions, losses):
        stages.setdefault(stage_of(seeds_in_houses(p.state)), []).append(loss)
    order = [stage_of(low) for low, _ in STAGES]
    by_stage = {
        stage: {"positions": len(stages[stage]), **quality_of(stages[stage])}
        for stage in order
        if stage in stages
    }
    return {**quality_of(losses), "by_stage": by_stage, "losses": losses}


def paired(
    losses: list[int], others: list[int], groups: Sequence[Hashable] | None = None
) -> dict[str, float]:
    """One chooser's moves against another's on the same positions: the difference in the
    share keeping the value and in seeds lost a move (first minus second), each with the
    standard error of the paired difference (clustered by `groups`, as `mean_se`).

    >>> d = paired([0, 0, 1, 0], [1, 0, 1, 2])
    >>> d["kept"], d["seeds_lost"]
    (0.5, -0.75)
    """
    if len(losses) != len(others):
        raise ValueError("a paired comparison needs the same positions")
    kept, kept_se = mean_se([float(a == 0) - float(b == 0) for a, b in zip(losses, others)], groups)
    lost, lost_se = mean_se([float(a - b) for a, b in zip(losses, others)], groups)
    return {"kept": kept, "kept_se": kept_se, "seeds_lost": lost, "seeds_lost_se": lost_se}
