"""Tak's alpha-beta evaluation and its guide's policy fitted to the search, as
`mancala fit evaluation` and `mancala fit guide` say, and offered as candidates
(`evaluation_candidate`, `guide_candidate`): the examples of
`mancala.games.tak.labels`, fitted by `mancala.learn.linear_fit`. Each job keeps its
progress beside its output (`runs.progress`): the evaluation each round's weights
(`evaluation-SIZE-rounds/`), the guide its labels a chunk at a time, or its self-play
games (played on the workers) each as it ends; a stopped one goes on.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from mancala.arena.records import GameLog, append_games, kept_seeds, replay
from mancala.core.atomic import atomic_path
from mancala.core.paths import recorded
from mancala.games.tak.evaluate import read_weights, save_weights, weights_file, weights_of
from mancala.games.tak.guide import SCALE, guide_file, read_guide, shipped_guide, write_guide
from mancala.games.tak.labels import ALWAYS, FIXED, Rows, label_moves, label_positions, positions
from mancala.games.tak.state import TakState, new_tak
from mancala.learn.linear_fit import CrossEntropy, MoveRows, Squares, best_first, chunked, sharpest
from mancala.learn.promotion import Candidate, Judged, pairs_decision, scoreboard_gate
from mancala.learn.runs import progress


@dataclass(frozen=True, kw_only=True)
class EvaluationFit:
    """A fit of the evaluation: the options of `mancala fit evaluation` (its --help)."""

    paths: tuple[Path, ...]  # the recorded games
    size: int
    positions: int
    depth: int
    rounds: int
    ridge: float
    hand: bool  # start from HAND_WEIGHTS (else the board's shipped ones)
    models: Path  # the output folder
    seed: int
    resume: bool
    command: str  # what made the weights, kept with them


@dataclass(frozen=True, kw_only=True)
class GuideFit:
    """A fit of the guide: the options of `mancala fit guide` (its --help)."""

    paths: tuple[Path, ...]  # the games to label (none with `factor` or `selfplay`)
    size: int
    positions: int
    depth: int
    temperature: float
    scale: float | None  # None: SCALE, or the guide's with `selfplay`
    ridge: float
    factor: float | None  # the policy: the evaluation times this, nothing fitted
    selfplay: int | None  # games of az's searches teach the guide
    simulations: int
    guide: Path | None  # the guide that plays (None: the shipped one)
    models: Path
    seed: int
    command: str
    workers: int = 1  # where the self-play games are played (`Workers`)
    address: str | None = None


def fit_evaluation(s: EvaluationFit) -> Path | None:
    """The evaluation fitted in `s.rounds` rounds, written after each to its file in
    `s.models` (returned); None when the games hold no position of the board. ValueError
    when a new fit would overwrite one, or a resumed one was made otherwise."""
    path = weights_file(s.size, s.models)
    folder = path.with_name(f"{path.stem}-rounds")
    if not s.resume and (path.exists() or folder.exists()):
        raise ValueError(f"{path} holds a fit already: --resume goes on with it")
    drawn = positions(GameLog(list(s.paths)), s.size, s.positions, s.seed)
    if not drawn:
        return None
    keys = ("size", "depth", "positions", "ridge", "seed", "hand")
    settings = {**{key: getattr(s, key) for key in keys}, "paths": list(map(str, s.paths))}
    done = sorted(progress(folder, settings, path.exists()).glob("round-*.json"))
    start = weights_of("hand" if s.hand else "fitted", s.size)
    weights = read_weights(done[-1]) if done else start  # a damaged file refused, named
    rounds = json.loads(done[-1].read_text())["rounds"] if done else []
    print(f"{len(drawn)} positions of {s.size}x{s.size} games; {len(rounds)} round(s) done")
    objective = Squares(s.ridge, FIXED, ALWAYS)
    for number in range(len(rounds) + 1, s.rounds + 1):
        with tqdm(
            total=len(drawn), desc=f"depth {s.depth}", unit="position", file=sys.stderr
        ) as bar:
            data = MoveRows(*label_positions(drawn, weights, s.depth, bar.update))
        train, held = data.split()
        fitted = objective.fit(train, weights)
        before, after = objective.loss(held, weights), objective.loss(held, fitted)
        print(
            f"round {number}: {len(data.values)} labels at depth {s.depth}; "
            f"held-out squared error {before:.3f} -> {after:.3f}",
            flush=True,
        )
        rounds.append({"labels": len(data.values), "error": [round(before, 4), round(after, 4)]})
        weights = fitted
        about = {"size": s.size, "depth": s.depth, "rounds": rounds, "command": s.command}
        for target in (folder / f"round-{number:04d}.json", path):
            save_weights(target, weights, about)
        print(f"weights saved to {path}")
    return path


def fit_guide(s: GuideFit) -> Path:
    """The guide fitted (or with `s.factor` made) and written to its file in `s.models`
    (returned); ValueError when there is nothing to fit."""
    path = guide_file(s.size, s.models)
    if s.factor is not None:
        about = {"command": s.command, "factor": s.factor}
        write_guide(path, s.factor * weights_of("fitted", s.size), s.scale or SCALE, about)
        return path
    labelled = _searched if s.selfplay is None else _self_played
    data, start, objective, scale, began = labelled(s, path)
    train, held = data.split()
    policy = objective.fit(train, start)
    before = objective.loss(held, start), best_first(held, start)
    after = objective.loss(held, policy), best_first(held, policy)
    print(
        f"held out ({held.position.max() + 1} positions), {began} -> the fit: cross-entropy "
        f"{before[0]:.3f} -> {after[0]:.3f}, the search's best move first "
        f"{before[1]:.1%} -> {after[1]:.1%}",
        flush=True,
    )
    about = {
        "command": s.command,
        "positions": int(data.position.max() + 1),
        "held_out": {
            "start": {"cross_entropy": round(before[0], 4), "best_first": round(before[1], 4)},
            "fit": {"cross_entropy": round(after[0], 4), "best_first": round(after[1], 4)},
        },
    }
    write_guide(path, policy, scale, about)
    return path


def _searched(s: GuideFit, path: Path):
    """The alpha-beta's labels of positions of the games, and the fit's start: (labels,
    start, objective, scale, what the start is)."""
    evaluation = weights_of("fitted", s.size)
    drawn = positions(GameLog(list(s.paths)), s.size, s.positions, s.seed)
    if not drawn:
        raise ValueError(f"no {s.size}x{s.size} positions in {', '.join(map(str, s.paths))}")
    folder = path.with_name(f"{path.stem}-labels-d{s.depth}-n{s.positions}-s{s.seed}")
    print(f"the labels are kept in {folder}; run it again to go on", flush=True)
    settings = {"size": s.size, "depth": s.depth, "positions": s.positions, "seed": s.seed}
    data = chunked(
        progress(folder, {**settings, "paths": list(map(str, s.paths))}),
        drawn,
        lambda part, done: label_moves(part, evaluation, s.depth, done),
        f"depth {s.depth}",
    )
    factor = sharpest(data.split()[0], evaluation, s.temperature)
    began = f"the evaluation times {factor:.3g}"
    return data, factor * evaluation, CrossEntropy(s.temperature, s.ridge), s.scale or SCALE, began


def _self_played(s: GuideFit, path: Path):
    """The improved policies of az's self-play with the guide, and the fit's start (the
    guide's policy): (labels, start, objective at temperature 1, the guide's scale, what
    the start is). The games are played on the workers and kept in the labels' folder as
    each ends, with the guide that plays them."""
    from mancala.arena.openings import random_openings
    from mancala.arena.parallel import GameJob, Workers
    from mancala.learn.az import SelfPlayGames

    source = s.guide or guide_file(s.size)
    guide = read_guide(source, s.size) if s.guide else shipped_guide({"size": s.size})
    if guide is None:
        raise ValueError(
            f"no guide ships for {s.size}x{s.size} boards ({source}): make one first "
            "(--factor or games to label), or name one with --guide"
        )
    if s.scale is not None and s.scale != guide.scale:
        raise ValueError(f"the guide's value scale is {guide.scale:g}: --scale cannot change it")
    digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:8]
    folder = path.with_name(
        f"{path.stem}-selfplay-{digest}-g{s.selfplay}-n{s.simulations}-s{s.seed}"
    )
    print(f"the games are kept in {folder}; run it again to go on", flush=True)
    keys = ("size", "selfplay", "simulations", "seed")
    progress(folder, {**{key: getattr(s, key) for key in keys}, "guide": digest})
    playing = folder / guide_file(s.size, Path()).name  # named as guides ship: workers read it
    if not playing.is_file():
        with atomic_path(playing) as temporary:
            shutil.copyfile(source, temporary)
    start = new_tak(s.size)
    _, openings = random_openings(start, s.selfplay, random.Random(s.seed), 2)
    how = SelfPlayGames(
        str(playing), playing.stat().st_mtime_ns, TakState.game,
        tuple(sorted(start.options.items())), s.simulations,
    )  # fmt: skip
    kept = folder / "games.jsonl"
    done = kept_seeds(kept)
    jobs = [
        GameJob((0, 0), start, tuple(moves), seed=s.seed + k, playing=how)
        for k, moves in enumerate(openings)
        if s.seed + k not in done
    ]
    desc = f"self-play at {s.simulations}"
    with tqdm(total=s.selfplay, initial=len(done), desc=desc, unit="game", file=sys.stderr) as bar:
        with Workers(s.workers, s.address) as workers:
            for finished in workers.play([], jobs):
                append_games(kept, [finished.record])
                bar.update()
    records = sorted(GameLog([kept]), key=lambda record: record["seed"])
    data = MoveRows(*self_play_rows(records, s.seed))
    return data, guide.policy, CrossEntropy(1.0, s.ridge), guide.scale, f"{source.name}'s policy"


def self_play_rows(records: list[dict[str, Any]], seed: int) -> tuple[np.ndarray, ...]:
    """The improved policies of az's Gumbel searches in the self-play `records` (game k
    the one of seed `seed` + k): each move's value is the log of its share, so that the
    softmax of the values at temperature 1 is the improved policy over the position's
    regular moves (the arrays of `MoveRows`). The positions without one (an opening's)
    are left out."""
    rows = Rows()
    for record in records:
        for state, policy in zip(replay(record), record["policy"]):
            if policy is not None:
                moves = np.array(state.legal_moves(), np.int64)  # the record's order
                with np.errstate(divide="ignore"):
                    rows.add(record["seed"] - seed, state, moves, np.log(policy))
    return rows.arrays()


EVALUATION_GATE_SECONDS = 0.1  # each side's time a move in a Tak evaluation's or guide's gate


def evaluation_candidate(
    folder: Path,
    models: Path,
    size: int,
    openings: int,
    seed: int,
    seconds: float = EVALUATION_GATE_SECONDS,
) -> Candidate:
    """Tak's fitted evaluation weights of boards of `size` in `folder` offered against
    those in `models` (the hand-set ones where none are there): the alpha-beta with each,
    `seconds` a move, plays game pairs (`pairs_decision`). ValueError when the candidate's
    file is missing or not weights."""
    from mancala.ai.minimax import Minimax
    from mancala.games.tak.evaluate import HAND_WEIGHTS

    path, target = weights_file(size, folder), weights_file(size, models)
    candidate = Minimax(seed, seconds=seconds, evaluation=read_weights(path))
    shipped = read_weights(target) if target.is_file() else HAND_WEIGHTS
    incumbent = Minimax(seed + 1, seconds=seconds, evaluation=shipped)
    against = "the shipped weights" if target.is_file() else "the hand-set weights"

    def judge() -> Judged:
        player = f"minimax:t={seconds:g}"
        return pairs_decision(candidate, incumbent, new_tak(size), against, player, folder,
                              openings, seed, seconds), []  # fmt: skip

    return _tak_candidate(path, target, models, judge)


def _tak_candidate(path: Path, target: Path, models: Path, judge: Callable[[], Judged]):
    return Candidate(target.stem, ((path, target),), models / "replaced" / TakState.game, judge)


def guide_candidate(
    folder: Path,
    models: Path,
    size: int,
    openings: int,
    seed: int,
    seconds: float = EVALUATION_GATE_SECONDS,
    anchors: Sequence[str] | None = None,
    workers=None,
) -> Candidate:
    """The guide of az on Tak boards of `size` in `folder` (`mancala.games.tak.guide`)
    offered, az with it playing `seconds` a move. Where az plays the board from `models`
    (its guide, else its network), on the game's scoreboard (`scoreboard_gate`: both
    against `anchors`, by default the game's, and one another, on `workers`); where az
    has neither, in game pairs (`pairs_decision`) against the board's alpha-beta at the same
    time: what a first guide replaces is the alpha-beta that the board's engine plays.
    ValueError when the candidate's file is no guide."""
    from mancala.ai.az import AZ
    from mancala.ai.minimax import Minimax
    from mancala.games import game
    from mancala.nn_lib.policy_value import Guide
    from mancala.nn_lib.policy_value import weights_file as network_file

    board = {"size": size}
    path, target = guide_file(size, folder), guide_file(size, models)
    guide = Guide(TakState.game, board, read_guide(path, size))
    network = network_file(TakState.game, models, board)
    player = f"az:t={seconds:g}"
    shipped = target if target.is_file() else network if network.is_file() else None

    def judge() -> Judged:
        if shipped is None:
            candidate = AZ(seed, seconds=seconds, net=guide)
            incumbent, against = Minimax(seed + 1, seconds=seconds), "the board's alpha-beta"
            return pairs_decision(candidate, incumbent, new_tak(size), against, player,
                                  folder, openings, seed, seconds), []  # fmt: skip
        scores, decision = scoreboard_gate(
            f"az-file:{path},t={seconds:g}", f"az-file:{shipped},t={seconds:g}",
            new_tak(size), list(anchors or game(TakState.game).anchors), openings, seed,
            workers, player,
        )  # fmt: skip
        return decision | {"folder": recorded(folder)}, scores.lines()

    return _tak_candidate(path, target, models, judge)
