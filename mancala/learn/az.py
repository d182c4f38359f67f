"""Self-play for the AlphaZero-style players (`mancala.ai.az`): games with visit counts,
the training examples of recorded games, and the gate a new network must pass.

A self-play game is played by `az` against itself with Dirichlet noise on the root's
priors; for its first `explore_plies` plies each move is drawn in proportion to the
search's visits (temperature 1), after that the most visited move is played. Its record
(the format of training/README.md) carries the visit counts of every position in the key `visits`
(one list a position: one count a house, or on Tak one a legal move; see
`mancala.learn.data.visit_row`), so that `mancala.learn.data.visit_targets` can learn
from it: the policy from the counts, the value from the outcome. A Tak game still going
after `ply_limit` plies stops there, a draw.

A Tak network's first fit learns from games of its fast alpha-beta
(`mancala.learn.teacher.TeacherGames`) or from the main job's annotated records: the
policy from the search's values of every legal move, the value from its value of the
position (`mancala.nn_lib.policy_value.searched_targets`).
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mancala.ai.az import AZ, AZNet, load_any_game
from mancala.ai.registry import make_player
from mancala.arena.match import make_record, ply_limit
from mancala.arena.opening_sets import board_set_starts
from mancala.arena.openings import random_opening
from mancala.arena.pairs import Pairs
from mancala.arena.parallel import GameJob, Workers
from mancala.arena.records import GameLog, append_games, kept_seeds
from mancala.arena.solved_set import move_quality, shipped_set
from mancala.arena.tournament import played_pairs, run_tournament
from mancala.game_state import GameState
from mancala.games import Capability, new_game, offers
from mancala.games import game as game_entry
from mancala.games.examples import Examples
from mancala.learn.curve import LearningCurve, win_rate
from mancala.learn.data import (
    annotated_states,
    policy_row,
    record_positions,
    visit_row,
    visit_targets,
)
from mancala.learn.gate import gate_openings
from mancala.learn.promotion import Candidate, offer, promote
from mancala.learn.runs import Run, progress
from mancala.learn.settings import SelfPlaySettings
from mancala.learn.teacher import TEACHER_OPENING_PLIES, TeacherGames
from mancala.learn.verdict import Measure, decide
from mancala.nn_lib.meta import describe_data
from mancala.nn_lib.policy_value import (
    NAME,
    PolicyValue,
    board_name,
    board_rules,
    game_text,
    guide_from_file,
    make_command,
    searched_targets,
    teacher_targets,
    weights_file,
)

Q_MOST = 0.9999  # a search's value is cut to this before it is recorded in seeds (`q`)
NOISE = 0.25  # the weight of the Dirichlet noise in the root's priors
ALPHA = 1.0  # its concentration: about 10 / the number of legal moves, as AlphaZero's
GATE_SET = "a"  # the shipped opening set whose first openings the gate plays
PROGRESS_SECONDS = 15.0  # a progress line at least this often while games are played
TEACHER_DEPTH = 2  # plies of the alpha-beta that values every move of its own games (Tak)


def self_play_game(player: AZ, start: GameState, explore_plies: int, seed: int) -> dict[str, Any]:
    """One game of `player` against itself from `start`, recorded with its visits."""
    rng = np.random.default_rng(seed)
    state, moves, visits = start, [], []
    most = ply_limit(start)
    while not state.is_over() and len(moves) != most:
        counts, *_ = player.search(state)
        legal = state.legal_moves()
        if counts.sum() == 0:  # stopped before its first simulation: every move once
            counts[legal] = 1
        if len(moves) < explore_plies:
            move = int(rng.choice(len(counts), p=counts / counts.sum()))
        else:
            move = int(np.argmax(counts))
        visits.append(visit_row(state, counts))
        moves.append(move)
        state = state.play(move)
    name = f"az:{player.simulations}+noise"
    extra = {} if state.is_over() else {"unfinished": True}
    return make_record(start, [name, name], moves, state, seed, visits=visits, **extra)


def gumbel_game(
    player: AZ, start: GameState, seed: int, fast: int = 0, full_share: float = 1.0
) -> dict[str, Any]:
    """One game of `player` against itself from `start`, every move chosen by a search
    whose root is Gumbel AlphaZero's (its Gumbel noise is the exploration), recorded with
    its visits and its improved policy (`policy`). Playout-cap randomisation (KataGo):
    with `fast` simulations, a move is a full search of the player's simulations with
    chance `full_share`, else a fast one of `fast`, whose position is no policy target
    (null). `q` is the search's value of each position for its mover: on the sowing
    games in seeds of final margin (the network's value scale times atanh of the value),
    else as the value head's (-1 lost .. 1 won)."""
    rng = np.random.default_rng(seed)
    state, moves, visits, policies, values = start, [], [], [], []
    most = ply_limit(start)
    net = player.net_for(start)
    while not state.is_over() and len(moves) != most:
        full = not fast or rng.random() < full_share
        move, policy, counts, value = player.gumbel_search(state, rng, None if full else fast)
        visits.append(visit_row(state, counts))
        policies.append(policy_row(state, policy) if full else None)
        if net.margins:
            value = net.seeds(value, Q_MOST)
        values.append(round(value, 3))
        moves.append(move)
        state = state.play(move)
    name = f"az:{player.simulations}+gumbel" + (f"/{fast}" if fast else "")
    extra = {} if state.is_over() else {"unfinished": True}
    return make_record(
        start, [name, name], moves, state, seed, visits=visits, policy=policies, q=values, **extra
    )


def self_player(net: PolicyValue, simulations: int, seed: int) -> AZ:
    """`az` with root noise, for self-play."""
    return AZ(seed, simulations=simulations, net=net, noise=NOISE, alpha=ALPHA)


@dataclass(frozen=True)
class SelfPlayGames:
    """How a worker plays self-play games (`mancala.arena.parallel.Playing`): `az` with
    `simulations` and the network of the board `rules` of `game` in the file `path`, or
    the guide there (`guide_from_file`), as it was at `stamp`, its modification time (a
    new best network is another way to play); its root `gumbel` (`gumbel_game`, with
    `fast` simulations for the cheap searches a `full_share` of the time) or `dirichlet`
    (`self_play_game`, moves drawn by visits for `explore_plies`)."""

    path: str
    stamp: int
    game: str
    rules: tuple[tuple[str, Any], ...]
    simulations: int
    root: str = "gumbel"
    explore_plies: int = 0
    fast: int = 0
    full_share: float = 1.0

    def make(self) -> SelfPlayer:
        path = Path(self.path)  # a guide's file (named as guides ship), else a network's
        net = guide_from_file(path) or PolicyValue(self.game, path, dict(self.rules)).load()
        return SelfPlayer(self, net)


class SelfPlayer:
    """Plays the games of `how` with its network `net` (read once a worker)."""

    def __init__(self, how: SelfPlayGames, net: PolicyValue) -> None:
        self.how, self.net = how, net

    def play(self, start: GameState, seed: int) -> dict[str, Any]:
        how = self.how
        if how.root == "gumbel":
            player = AZ(seed, simulations=how.simulations, net=self.net)
            return gumbel_game(player, start, seed, how.fast, how.full_share)
        player = self_player(self.net, how.simulations, seed)
        return self_play_game(player, start, how.explore_plies, seed)


def _of_board(record: dict[str, Any], game: str, rules: dict[str, Any]) -> bool:
    """Whether `record` is a game of `game` on the board `rules` (`board_rules`)."""
    options = record.get("options", {})
    return record.get("variant") == game and all(
        options.get(key, value if key == "empty_capture" else None) == value
        for key, value in rules.items()
    )


def teacher_examples(
    paths: Iterable[str | os.PathLike],
    game: str,
    value_scale: float,
    rules: dict[str, Any] | None = None,
) -> tuple[Examples, int, list[str]]:
    """(examples, games, teachers) of the teacher-annotated records of `game` in `paths`
    (of its board `rules`, else its default board), values on the scale `value_scale`;
    ValueError when there are none."""
    rules = board_rules(game, rules)
    paths = list(paths)
    parts, teachers = [], []
    for path in paths:
        if not os.path.isfile(path):
            raise ValueError(f"--from: no file {path}")
    for record in GameLog(paths):
        if not _of_board(record, game, rules):
            continue
        try:
            if offers(game, Capability.MARGIN):  # values in seeds: `teacher_targets`
                arrays = record_positions(record)
                part = None if arrays is None else teacher_targets(*arrays, value_scale)
            elif record.get("values") is not None:  # a search's, in its units
                part = _searched_record(record)
            else:
                part = None
        except (TypeError, ValueError):
            continue
        if part is not None:
            parts.append(part)
            teacher = str(record.get("teacher", "an unnamed teacher"))
            teachers += [teacher] if teacher not in teachers else []
    if not parts:
        record = (
            f"`mancala train --record-only --variant {game}`"
            if not game_entry(game).search
            else f"none: learn from its alpha-beta's games with `{make_command(game)}`"
        )
        raise ValueError(
            f"--from: no teacher-annotated games of {game_text(game, rules)} in "
            f"{', '.join(map(str, paths))}; record some with {record}"
        )
    return Examples.joined(parts), len(parts), teachers


def _searched_record(record: dict[str, Any]) -> Examples | None:
    """`searched_targets` of the labelled positions of an annotated record (a row of
    values None: not labelled, as an opening's); None when it has none."""
    labelled = [
        (state, row)
        for state, row in zip(annotated_states(record), record["values"], strict=True)
        if row is not None
    ]
    return searched_targets(*map(list, zip(*labelled))) if labelled else None


def teacher_opening(start: GameState, seed: int) -> list[int]:
    """The random opening of the teacher's game of `seed` (TEACHER_OPENING_PLIES plies)."""
    return random_opening(start, TEACHER_OPENING_PLIES, random.Random(seed))[1]


def visit_examples(
    path: str | os.PathLike,
    game: str,
    window: int,
    value_scale: float,
    search_value: float = 0.0,
    rules: dict[str, Any] | None = None,
    score_weight: float = 0.0,
) -> tuple[Examples, int]:
    """(examples, games) of the last `window` self-play games of `game` (on its board
    `rules`, else its default board) in `path`, values on the scale `value_scale`
    (`search_value`: the weight of the search's values beside the outcome,
    `mancala.learn.data.visit_targets`)."""
    rules = board_rules(game, rules)
    records = [r for r in GameLog([path]) if _of_board(r, game, rules) and r.get("visits")]
    parts = []
    for record in records[-window:]:
        try:
            part = visit_targets(record, value_scale, search_value, score_weight)
        except ValueError:
            continue
        if part is not None:
            parts.append(part)
    if not parts:
        raise ValueError(f"no self-play games of {game} with visits in {path}")
    return Examples.joined(parts), len(parts)


def replay_sample(data: Examples, passes: float, seed: int) -> Examples:
    """`passes` times the examples of `data`, drawn at random (without repeats within a
    pass): a refit that learns each position of the replay window about as often, over
    the rounds it stays there, however large the window.

    >>> data = Examples(np.arange(10), np.arange(10) * 2, np.ones(10, bool))
    >>> [len(replay_sample(data, p, 0).inputs) for p in (2, 0.5, 1.5)]
    [20, 5, 15]
    >>> rows, doubled, _ = replay_sample(data, 1, 0)
    >>> sorted(rows.tolist()) == list(range(10)) and bool((doubled == 2 * rows).all())
    True
    """
    rng = np.random.default_rng(seed)
    size = len(data.inputs)
    whole, part = divmod(passes * size, size)
    order = [rng.permutation(size) for _ in range(int(whole))]
    order.append(rng.permutation(size)[: max(1, round(part))] if part or not order else [])
    rows = np.concatenate(order).astype(np.int64)
    return data.take(rows)


def head_to_head(
    candidate: Path,
    incumbent: Path,
    start: GameState,
    simulations: int,
    openings: int,
    seed: int,
    workers: Workers | None = None,
) -> Pairs:
    """The game pairs of the network in the file `candidate` against the one in
    `incumbent`, both as `az` with `simulations`, played on `workers` (default: here):
    the first `openings` of `start`'s shipped opening set (distinct, contested) when
    there is one, and random openings of 4 plies beyond it."""
    starts, moves = board_set_starts(start, GATE_SET) or ([], [])
    moves = moves[:openings]
    if openings > len(moves):
        moves += gate_openings(start, openings - len(moves), 4, seed)[1]
    names = [f"az-file:{path},n={simulations}" for path in (candidate, incumbent)]
    result = run_tournament(
        names, len(moves), start, seed=seed, openings=moves, workers=workers,
        progress=False, pairings=[(names[0], names[1])],
    )  # fmt: skip
    return played_pairs(result, *names)


class Loop:
    """The self-play loop of one run (its typed settings `args`): pretraining, rounds of
    self-play, refit, gate and promotion, the learning curve."""

    def __init__(self, run: Run, args: SelfPlaySettings, workers: Workers | None = None) -> None:
        self.run, self.args, self.game = run, args, args.variant
        self.workers = workers or Workers(1)  # where the self-play games are played
        self.rules = board_rules(self.game, args.rules)
        self.network = f"{NAME}-{board_name(self.game, self.rules)}"  # its files in the run
        self.best_path = weights_file(self.game, args.models, self.rules)
        self.curve = LearningCurve(run.curve)
        self.rounds_done = max((p.get("round", 0) for p in self.curve.points), default=0)
        self.offset = self.curve.points[-1]["minutes"] if self.curve.points else 0.0
        self.began = time.perf_counter()
        self.start = new_game(self.game, **self.rules)
        self.solved = shipped_set(self.start)

    def best(self) -> PolicyValue:
        """The current best network; ValueError (naming what to do) when there is none."""
        if not self.best_path.is_file():
            first = (
                "--teacher-games N (games of its own alpha-beta)"
                if game_entry(self.game).search
                else "--from FILE (teacher-annotated games, recorded by mancala train)"
            )
            raise ValueError(
                f"no {NAME} weights for {game_text(self.game, self.rules)} at "
                f"{self.best_path}: start a run with {first}"
            )
        return self.network_at(self.best_path).load()

    def network_at(self, path: Path) -> PolicyValue:
        """The run's board's network at `path` (not read yet)."""
        return PolicyValue(self.game, path, self.rules)

    def candidate_path(self) -> Path:
        return self.run.candidate(self.network)

    def trainee(self) -> PolicyValue:
        """The network a round refits: the run's last candidate, whether or not it passed
        the gate (its training goes on, as AlphaGo Zero's did, while self-play uses the
        best network), else the best network; saved to the candidate's path."""
        path = self.candidate_path()
        if self.args.refit_from == "best" or not path.is_file():
            path = self.best_path
        net = self.network_at(path).load()
        net.path = self.candidate_path()
        return net

    def pretrain(self, sources: list[Path]) -> None:
        """Learn a first candidate from the teacher's values in `sources`; offer it."""
        data, games, teachers = teacher_examples(
            sources, self.game, self.args.value_scale, self.rules
        )
        described = describe_data(sources, games, len(data[0]))
        self.learn_first(data, games, ", ".join(teachers), described)

    def teacher_plan(self) -> int | None:
        """The teacher games this run's unfinished pretraining was asked for, else None
        (its folder goes once the first network is made)."""
        plan = self.run.teacher / "settings.json"  # as `progress` keeps it
        return int(json.loads(plan.read_text())["games"]) if plan.is_file() else None

    def pretrain_by_teacher(self, games: int) -> None:
        """Learn a first candidate from `games` games of the game's own alpha-beta
        (`TeacherGames`, on the workers); offer it. Each game is kept in the run's
        teacher/ folder as it ends, so a stopped pretraining goes on with --resume from
        the next."""
        folder = progress(
            self.run.teacher, {"games": games, "rules": {"variant": self.game, **self.rules}}
        )
        kept = folder / "games.jsonl"
        done = kept_seeds(kept)
        if done:
            self.run.log(f"teacher: {len(done)}/{games} games kept in {folder}")
        how = TeacherGames(self.game, TEACHER_DEPTH)
        seeds = (self.args.seed * 1_000_003 + k for k in range(games))
        jobs = [
            GameJob((0, 0), self.start, tuple(teacher_opening(self.start, s)), s, playing=how)
            for s in seeds
            if s not in done
        ]
        shown = time.perf_counter()
        for played, finished in enumerate(self.workers.play([], jobs), len(done) + 1):
            append_games(kept, [finished.record])
            if time.perf_counter() - shown >= PROGRESS_SECONDS or played == games:
                shown = time.perf_counter()
                self.run.log(
                    f"teacher: {played}/{games} games of its alpha-beta, "
                    f"total {self.minutes():.1f} min"
                )
        data, _, (teacher,) = teacher_examples([kept], self.game, self.args.value_scale, self.rules)
        described = f"{games:,} games of it, {len(data[0]):,} positions"
        self.learn_first(data, games, f"{teacher} (its own games), every move valued", described)
        shutil.rmtree(folder)  # the first network holds what they taught

    def adopt(self, source: Path) -> None:
        """Offer the weights of `source`, a network of another board of the game with the
        same shapes (Kalah(6,4)'s for Kalah(6,5), say), as the first network; ValueError
        when they do not fit this board."""
        other = load_any_game(source)
        net = self.network_at(self.candidate_path()).fresh(self.args.seed)
        if other.game != self.game:
            raise ValueError(f"--init: {source} is a network of {other.game}, not {self.game}")
        try:
            net.model.set_weights(other.model.get_weights())
        except ValueError:
            raise ValueError(
                f"--init: {source} ({game_text(other.game, other.options)}) has not the shapes "
                f"of a network of {game_text(self.game, self.rules)}"
            ) from None
        net.value_scale, net.score_weight = other.value_scale, other.score_weight
        net.save(
            teacher=f"the teachers of {other.label} (its weights, taken from {source})",
            data=f"games of {game_text(other.game, other.options)}, none of this board",
        )
        self.offer(net, 0, math.nan)

    def scratch(self) -> None:
        """Offer untrained weights as the first network (generation 0 of a run that
        learns from nothing but its own games)."""
        net = self.network_at(self.candidate_path()).fresh(self.args.seed)
        net.value_scale = self.args.value_scale
        net.save(teacher="none: untrained weights", data="none")
        self.offer(net, 0, math.nan)

    def learn_first(self, data: Examples, games: int, teacher: str, described: str) -> None:
        """Fit a fresh network to `data` of `games` games (what `teacher` said,
        `described`); offer it."""
        positions = len(data[0])
        self.run.log(f"pretraining on {positions:,} positions of {games:,} games ...")
        net = self.network_at(self.candidate_path()).fresh(self.args.seed)
        net.value_scale = self.args.value_scale
        loss = net.fit(data, epochs=self.args.epochs)
        net.save(teacher=teacher, data=described)
        self.offer(net, 0, loss)

    def round(self, number: int) -> None:
        """Self-play --games games with the best network, refit, offer the candidate."""
        args = self.args
        self.best()  # ValueError, naming what to do, where there is none
        network = self.network
        if not self.run.generations(network):  # a run from weights it did not make
            promote(self.best_path, self.run.generation(network, 0), self.run.folder)
        how = SelfPlayGames(
            str(self.best_path), self.best_path.stat().st_mtime_ns, self.game,
            tuple(sorted(self.rules.items())), args.simulations, self.root(),
            args.explore_plies, args.fast_simulations, args.full_share,
        )  # fmt: skip
        first = (args.seed * 1_000_003 + number) * 100_003
        jobs = [GameJob((0, 0), self.start, seed=first + k, playing=how) for k in range(args.games)]
        shown = time.perf_counter()
        for played, done in enumerate(self.workers.play([], jobs), 1):
            append_games(self.run.games, [done.record])
            if time.perf_counter() - shown >= PROGRESS_SECONDS or played == args.games:
                shown = time.perf_counter()
                self.run.log(
                    f"round {number}: {played}/{args.games} self-play games, "
                    f"total {self.minutes():.1f} min"
                )
        net = self.trainee()
        data, games = visit_examples(
            self.run.games,
            self.game,
            args.window,
            net.value_scale,
            args.search_value,
            self.rules,
            net.score_weight,
        )
        sample = replay_sample(data, args.epochs * min(1.0, args.games / games), args.seed + number)
        loss = net.fit(sample, learning_rate=args.learning_rate)
        recorded = describe_data([self.run.games], games, len(data[0]))
        teacher = (
            f"self-play of az:{args.simulations} with a {self.root()} root "
            f"(refit from the {args.refit_from} network)"
        )
        net.save(teacher=teacher, data=recorded)
        self.offer(net, number, loss)

    def root(self) -> str:
        """How self-play explores: `gumbel` (Gumbel AlphaZero's root, the default) or
        `dirichlet` (AlphaZero's root noise and moves drawn by visits)."""
        return self.args.root or "gumbel"

    def minutes(self) -> float:
        return self.offset + (time.perf_counter() - self.began) / 60

    def offer(self, net: PolicyValue, number: int, loss: float) -> None:
        """Gate `net` against the best network, promote it if it passes, log, plot."""
        args = self.args
        decision = self.judge(net, number)
        keep = self.best_path.parent.parent / "replaced"
        files = ((net.path, self.best_path),)
        offer(Candidate(self.network, files, keep, lambda: (decision, [])), self.run.record_gate)
        promoted, reason, score = decision["promoted"], decision["reason"], decision["head_to_head"]
        if promoted:  # the run keeps each generation
            generation = len(self.run.generations(self.network))
            promote(net.path, self.run.generation(self.network, generation), self.run.folder)
        rates = self.rates(net) if args.eval else {}
        kept = {}
        if self.solved:
            kept = {NAME: 100.0 * move_quality(AZNet(net=net).choose_moves, self.solved)["kept"]}
        self.curve.add(
            {
                "round": number,
                "minutes": round(self.minutes(), 2),
                "games": sum(1 for _ in GameLog([self.run.games], validate=False)),
                "rates": rates,
                "kept": kept,
                "loss": loss,
                "head_to_head": score,
                "promoted": promoted,
            }
        )
        against = " ".join(f"{n} {r:.0f}" for n, r in rates.get("greedy", {}).items())
        self.run.log(
            f"round {number}: loss {loss:.3f}, candidate "
            + ("promoted" if promoted else "kept out")
            + f" ({reason})"
            + (f" | % won vs greedy: {against}" if against else "")
            + (f" | % value kept: {kept[NAME]:.1f}" if kept else "")
            + f" | total {self.minutes():.1f} min"
        )

    def judge(self, net: PolicyValue, number: int) -> dict[str, Any]:
        """The gate's decision on `net` of round `number`: game pairs against the best
        network, promoted ahead by --lead standard errors and at least --margin."""
        args = self.args
        if not self.best_path.is_file():
            score, promoted, reason = None, True, "no weights to replace"
        else:
            pairs = head_to_head(
                net.path, self.best_path, self.start, args.simulations, args.gate_openings,
                args.seed + number, self.workers,
            )  # fmt: skip
            score, error = pairs.score(), pairs.standard_error()
            said = (
                f"of even: scored {score:.1%} ± {error:.1%} in {len(pairs.points)} game pairs "
                f"against the best network (and at least {args.margin:.0%} asked)"
            )
            head = Measure("score against the best network", score - 0.5, error, said)
            promoted, reason = decide(head, lead=args.lead, ties=True, at_least=args.margin - 0.5)
        return {"round": number, "promoted": promoted, "reason": reason, "head_to_head": score}

    def rates(self, net: PolicyValue) -> dict[str, dict[str, float]]:
        """% won against greedy by the candidate alone and with search."""
        players = {
            NAME: AZNet(net=net),
            f"az:{self.args.simulations}": AZ(0, simulations=self.args.simulations, net=net),
        }
        greedy = make_player("greedy", seed=1)
        openings = self.args.eval
        return {
            "greedy": {
                name: win_rate(player, greedy, openings, start=self.start)
                for name, player in players.items()
            }
        }
