"""One network's promotion: a candidate's weights replace the shipped ones in a weights
folder only through the gate (`mancala.learn.gate`), and the decision is recorded.

Every kind of weights is offered the same way: a `Candidate` (its files, the shipped files
they would replace, and how it is judged) is made by its kind (`zoo_candidate`,
`az_candidate`, `dqn_candidate` here; Tak's `evaluation_candidate` and `guide_candidate`
in `mancala.learn.tak_fit`, judged in game pairs, `pairs_decision`; self-play's own),
and `offer` judges it, installs it where it passes (`install`: the replaced files kept)
and records the decision.

On Kalah(6,4) the gate also meets the candidate against perfect play, on the gate's set
of solved positions (mancala/data/kalah-h6-s4-gate.jsonl; the whole-game set on a board
without one): one not shown to keep the value more often than the weights it would
replace is refused at once, without the gate's games. First weights, where there are
none to replace, go through the same gate against random play (`luck`).
`mancala train` puts every refit candidate through this; `mancala promote` a network
trained by hand, the DQN's pair of nets (one a seat), which meet the Sungka paper's
fixed opponents, or a policy-value network (az-net), which is judged by its search
without the solver's help (`az-solo:AZ_GATE_SIMULATIONS`: the network's own part of what
`az` plays) where solved positions meet it, and elsewhere (Sungka) on the game's
scoreboard (`mancala.learn.scoreboard`): as `az` plays, `AZ_SCOREBOARD_SECONDS` a move,
beside the incumbent on the game's fixed opening set.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mancala.arena.records import append_games
from mancala.core.atomic import atomic_path
from mancala.core.paths import recorded
from mancala.nn_lib.meta import meta_path

Record = Callable[[str, dict[str, Any]], None]  # (network, decision) -> written down
Judged = tuple[dict[str, Any], list[str]]  # (the decision, lines shown after the verdict)


@dataclass(frozen=True)
class Candidate:
    """Weights offered to the gate: recorded as `name` (shown as `shown`), each (new,
    shipped) of `files` copied onto the shipped path where `judge()` promotes, the
    replaced files kept in `keep`."""

    name: str
    files: tuple[tuple[Path, Path], ...]
    keep: Path
    judge: Callable[[], Judged]
    shown: str | None = None


def offer(candidate: Candidate, record: Record) -> str:
    """Judge `candidate`, install it where it passes, record the decision: the lines
    saying what was decided."""
    decision, lines = candidate.judge()
    line = install(
        candidate.name, decision, candidate.files, candidate.keep, record, candidate.shown
    )
    return "\n".join([line, *lines])


def promote(candidate: Path, target: Path, keep: Path) -> Path | None:
    """Copy the weights `candidate` (and the metadata file beside it) onto `target`
    atomically; the files they replace are first copied into the folder `keep`, named
    with the time. The kept weights' path, or None where there were none."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    pairs = [(candidate, target), (meta_path(candidate), meta_path(target))]
    kept = []
    for source, destination in pairs:
        if not source.is_file():
            continue
        if destination.is_file():
            keep.mkdir(parents=True, exist_ok=True)
            kept.append(keep / destination.name.replace(target.stem, f"{target.stem}-{stamp}", 1))
            shutil.copy2(destination, kept[-1])
        with atomic_path(destination) as temp:
            shutil.copyfile(source, temp)
    return kept[0] if kept and kept[0].suffix == target.suffix else None


def install(
    name: str,
    decision: dict[str, Any],
    files: Sequence[tuple[Path, Path]],
    keep: Path,
    record: Record,
    shown: str | None = None,
) -> str:
    """Where `decision` promotes, each (new, old) of `files` copied onto old (`promote`:
    the replaced files kept in `keep`, their paths in the decision's "kept", one or a
    list); the decision recorded either way. The line saying what was decided, the
    weights named `shown` (default `name`)."""
    if decision["promoted"]:
        kept = [promote(new, old, keep) for new, old in files if new.is_file()]
        shown_kept = [recorded(path) if path else None for path in kept]
        decision["kept"] = shown_kept[0] if len(shown_kept) == 1 else shown_kept
    record(name, decision)
    target = files[0][1]
    said = f"promoted to {target}" if decision["promoted"] else "kept the current weights"
    return f"gate {shown or name}: {said}: {decision['reason']}"


def record_to(path: Path) -> Record:
    """A `Record` appending each decision to the JSONL file `path`, one whole line."""

    def record(network: str, decision: dict[str, Any]) -> None:
        line = {"network": network, "time": datetime.now(UTC).isoformat(timespec="seconds")}
        append_games(path, [line | decision])  # the records' whole-line append

    return record


DQN_OPPONENTS = ("luck", "max", "exact")
AZ_GATE_SIMULATIONS = 1000  # az-solo's simulations a move in an az-net's gate
AZ_SCOREBOARD_SECONDS = 0.1  # az's time a move in an az-net's scoreboard
DQN_CURVES = (".png", ".json")  # the learning curve beside each DQN net


def dqn_candidate(folder: Path, models: Path, variant: str, openings: int, seed: int) -> Candidate:
    """The DQN nets of both seats in `folder` (with their learning curves) offered against
    those in `models`, head to head and against `DQN_OPPONENTS`, from `openings` random
    2-ply openings in both seats; ValueError when a net is missing."""
    from mancala.ai.dqn import SEATS, DQNPlayer, weights_file, weights_path
    from mancala.game_state import GameState
    from mancala.learn.gate import gate

    paths = [
        (weights_file(variant, seat, folder), weights_path(variant, seat, models))
        for seat in range(len(SEATS))
    ]
    missing = [str(path) for pair in paths for path in pair if not path.is_file()]
    if missing:
        raise ValueError(f"no DQN weights at {', '.join(missing)}")

    def judge() -> Judged:
        candidate = DQNPlayer(seed=seed, models_dir=folder)
        incumbent = DQNPlayer(seed=seed, models_dir=models)
        candidate.name = incumbent.name = "dqn"
        start = GameState.new(variant)
        result = gate(candidate, incumbent, DQN_OPPONENTS, start, openings=openings, plies=2,
                      seed=seed)  # fmt: skip
        decision = {"variant": variant, **result.to_dict(), "folder": recorded(folder)}
        return decision, [
            f"  against {spec}: candidate {row['candidate']:.3f}, shipped {row['incumbent']:.3f}"
            for spec, row in result.against.items()
        ]

    curves = [(n.with_suffix(x), o.with_suffix(x)) for n, o in paths for x in DQN_CURVES]
    keep = models / "replaced" / variant
    return Candidate("dqn", (*paths, *curves), keep, judge, f"dqn {variant}")


def gate_positions(game: str, options: dict | None = None) -> list:
    """The solved positions the gate meets candidates on, of a board of `game` (its
    default board unless `options` say otherwise): the gate's set where one ships for the
    board (2,000 positions: a gain of a point or two shows), else its whole-game set
    ([] if neither ships). Never the held-out set, which judges what the gate let pass."""
    from mancala.arena.solved_set import shipped_set
    from mancala.games import new_game
    from mancala.nn_lib.boards import board_rules

    start = new_game(game, **board_rules(game, options))
    return shipped_set(start, "gate") or shipped_set(start)


def value_kept(player, positions: list) -> float:
    """% of `positions` where `player` (a network alone) plays a move that keeps the value."""
    kept = kept_each(player, positions)
    return 100.0 * sum(kept) / len(kept)


def against_perfect_play(
    candidate, incumbent, solved: list, incumbent_kept: list[float] | None = None
) -> dict[str, Any]:
    """The gate's `exact` and `groups` for two players on the `solved` positions: each
    one's 1 or 0 (value kept) in every position (the incumbent's `incumbent_kept` where
    known), and the positions' keys; {} for none."""
    if not solved:
        return {}
    kept = incumbent_kept if incumbent_kept is not None else kept_each(incumbent, solved)
    return {"exact": (kept_each(candidate, solved), kept), "groups": [p.key for p in solved]}


_FILES_KEPT: dict[tuple, list[float]] = {}  # (file, its version, set) -> kept_each


def kept_by_file(player, path: Path, solved: list) -> list[float]:
    """`kept_each(player, solved)` of a player whose moves depend on nothing but the
    weights file `path` (az-solo at a fixed number of simulations: its search is
    deterministic), worked out once per version of the file and set in this process:
    the main job gates az-net against the same file batch after batch."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, tuple(p.key for p in solved))
    if key not in _FILES_KEPT:
        _FILES_KEPT[key] = kept_each(player, solved)
    return _FILES_KEPT[key]


def kept_each(player, positions: list) -> list[float]:
    """1.0 for each of `positions` where `player`'s move keeps the value, else 0.0."""
    from mancala.arena.solved_set import move_losses

    return [float(loss == 0) for loss in move_losses(player.choose_moves, positions)]


def zoo_candidate(
    net,
    models: Path,
    opponents: Sequence[str],
    openings: int,
    seed: int,
    solved: list = (),
    start=None,
    lead: float = 2.0,
) -> Candidate:
    """The zoo network `net` (its file at `net.path`) offered against the weights of its
    name in `models`, with the fixed `opponents` over `openings` openings, passing
    `lead` standard errors ahead; with `solved` positions, against perfect play first."""
    from mancala.ai.network import NetworkPlayer
    from mancala.nn_lib.base import WeightsError, weights_path
    from mancala.nn_lib.zoo import network

    target = weights_path(net.name, net.board, models)

    def judge() -> Judged:
        if not target.is_file():
            decision = _gated(net, first_bar(seed), opponents, openings, seed, solved, start, lead)
            return decision | {"reason": f"{nothing_to_replace(models)}: {decision['reason']}"}, []
        try:
            incumbent = NetworkPlayer(
                net=network(net.name, target, net.variant, net.options).load()
            )
        except WeightsError as error:
            return {"promoted": True, "reason": f"the weights it replaces are damaged: {error}"}, []
        return _gated(net, incumbent, opponents, openings, seed, solved, start, lead), []

    return Candidate(net.name, ((net.path, target),), models / "replaced" / net.board, judge)


def first_bar(seed: int):
    """What first weights must beat where there are none to replace: random play (`luck`),
    through the same gate (a fit that learnt nothing is refused)."""
    from mancala.ai.registry import make_player

    return make_player("luck", seed=seed)


def nothing_to_replace(models: Path) -> str:
    return f"no weights in {recorded(models)} to replace, so gated against random play (luck)"


def _gated(
    net, incumbent, opponents, openings: int, seed: int, solved: list, start=None, lead=2.0
) -> dict:
    """The gate's decision on `net` against `incumbent`, from openings of `start`
    (Kalah(6,4) by default); against perfect play too, with `solved` positions."""
    from mancala.ai.network import NetworkPlayer
    from mancala.game_state import GameState
    from mancala.learn.gate import gate

    candidate = NetworkPlayer(net=net)
    result = gate(
        candidate,
        incumbent,
        opponents,
        start or GameState.new(),
        openings=openings,
        seed=seed,
        lead=lead,
        **against_perfect_play(candidate, incumbent, solved),
    )
    return result.to_dict() | {"lead": lead}


def az_gate_opponents(variant: str, given: Sequence[str], solved: bool) -> list[str]:
    """Whom az-net's gate plays: the opponents `given` (--gate-opponents), else where a
    solved set judges it the game's gate players, else its scoreboard's anchors.

    >>> az_gate_opponents("sungka", [], solved=False), az_gate_opponents("kalah", [], True)
    (['minimax:t=0.1', 'minimax:4'], ['greedy', 'minimax:4'])
    >>> az_gate_opponents("sungka", ["greedy"], solved=False)
    ['greedy']
    """
    from mancala.games import game

    if given:
        return list(given)
    return list(game(variant).gate if solved else game(variant).anchors)


def az_candidate(
    folder: Path,
    models: Path,
    variant: str,
    opponents: Sequence[str],
    openings: int,
    seed: int,
    solved: list = (),
    workers=None,
    lead: float = 2.0,
) -> Candidate:
    """The policy-value network in `folder` offered against the one in `models`. With
    `solved` positions, both are played by az without the solver's help
    (AZ_GATE_SIMULATIONS simulations a move), against perfect play first, then with the
    fixed `opponents` over `openings` random openings, ahead by `lead` standard errors;
    without, on the game's scoreboard (`opponents` its anchors, the first `openings` of
    its fixed set) on `workers`. ValueError when the candidate has no weights file,
    WeightsError when either file is damaged (before any game)."""
    from mancala.ai.az import AZ
    from mancala.games import new_game
    from mancala.learn.gate import gate
    from mancala.nn_lib.policy_value import NAME, PolicyValue, weights_file

    path, target = weights_file(variant, folder), weights_file(variant, models)
    if not path.is_file():
        raise ValueError(f"no weights at {path}")
    net = PolicyValue(variant, path).load()
    shipped = PolicyValue(variant, target).load() if target.is_file() else None
    player = f"az-solo:{AZ_GATE_SIMULATIONS}" if solved else f"az:t={AZ_SCOREBOARD_SECONDS:g}"

    def searching(weights: PolicyValue) -> AZ:
        az = AZ(seed, simulations=AZ_GATE_SIMULATIONS, net=weights, endgame=False, prove=False)
        az.name = player
        return az

    def judge() -> Judged:
        if not solved:
            board, decision = _az_scoreboard(path, target, variant, opponents, openings, seed,
                                             workers)  # fmt: skip
            return decision | {"folder": recorded(folder)}, board.lines()
        candidate = searching(net)
        incumbent = searching(shipped) if shipped is not None else None
        against = incumbent or first_bar(seed)
        known = kept_by_file(incumbent, target, solved) if incumbent is not None else None
        result = gate(
            candidate, against, opponents, new_game(variant), openings=openings, seed=seed,
            lead=lead, **against_perfect_play(candidate, against, solved, known),
        )  # fmt: skip
        decision = {"variant": variant, "player": player, **result.to_dict(), "lead": lead}
        if incumbent is None:
            decision["reason"] = f"{nothing_to_replace(models)}: {decision['reason']}"
        return decision | {"folder": recorded(folder)}, []

    keep = models / "replaced" / net.board
    return Candidate(NAME, ((path, target),), keep, judge, f"{NAME} ({player})")


def _az_scoreboard(
    path: Path, target: Path, variant: str, anchors, openings: int, seed: int, workers
) -> tuple[Any, dict]:
    """(the scoreboard, the decision) of the network at `path` against the one at `target`
    (random play, `luck`, where there is none), both played as `az` plays."""
    from mancala.games import new_game

    start = new_game(variant)
    timed = f"t={AZ_SCOREBOARD_SECONDS:g}"
    candidate = f"az-file:{path},{timed}"
    incumbent = f"az-file:{target},{timed}" if target.is_file() else first_bar(seed).name
    board, decision = scoreboard_gate(
        candidate, incumbent, start, anchors, openings, seed, workers, f"az:{timed}"
    )
    if not target.is_file():
        decision["reason"] = f"{nothing_to_replace(target.parent.parent)}: {decision['reason']}"
    return board, decision


def scoreboard_gate(
    candidate: str,
    incumbent: str,
    start,
    anchors: Sequence[str],
    openings: int,
    seed: int,
    workers,
    player: str,
) -> tuple[Any, dict]:
    """(the scoreboard, the decision) of the players named `candidate` and `incumbent`
    (as `player` names how they play) on the first `openings` openings of the fixed set
    of `start`'s board, or where none ships, as many random 2-ply openings; promoted by
    the scoreboard's rule on the game's main measure."""
    from mancala.games import game
    from mancala.learn.gate import fixed_or_random_openings
    from mancala.learn.scoreboard import play_scoreboard

    _, moves, fixed = fixed_or_random_openings(start, openings, seed)
    board = play_scoreboard(candidate, incumbent, anchors, start, moves, seed=seed, workers=workers)
    promoted, reason = board.verdict(main=game(start.game).main_measure)
    decision = {"variant": start.game, "player": player, "promoted": promoted}
    drawn = fixed or "random 2-ply"
    return board, decision | {"reason": reason, "opening_set": drawn, **board.to_dict()}


def pairs_decision(
    candidate, incumbent, start, against, player, folder, openings, seed, seconds
) -> dict[str, Any]:
    """The decision on `candidate` against `incumbent` in game pairs from `openings`
    openings of the fixed set of `start`'s board (random 2-ply openings where none
    ships), a bar of moves: promoted when it scores above half by two standard errors."""
    import sys

    from tqdm import tqdm

    from mancala.arena.pairs import play_pairs
    from mancala.learn.gate import fixed_or_random_openings
    from mancala.learn.verdict import Measure, decide

    starts, moves, _ = fixed_or_random_openings(start, openings, seed)
    total = 2 * len(starts)
    over = iter(range(1, total + 1))  # the count of games over, one drawn at each end
    # a bar of moves, the games over beside it: a seat's games go on side by side
    with tqdm(desc="gate", unit="move", file=sys.stderr, mininterval=5) as bar:

        def game_over(_) -> None:
            bar.set_postfix_str(f"{next(over)}/{total} games")

        def moved(*_) -> None:
            bar.update()

        bar.set_postfix_str(f"0/{total} games", refresh=False)
        pairs = play_pairs(candidate, incumbent, starts, moves, seed, game_over, moved)
    score, error = pairs.score(), pairs.standard_error()
    said = (
        f"of half: scored {100 * score:.1f}% ± {100 * error:.1f}% against {against} in "
        f"{len(starts)} game pairs at {seconds:g} s a move"
    )
    promoted, reason = decide(Measure("score", score - 0.5, error, said), ties=True)
    return {
        "variant": start.game,
        "player": player,
        "promoted": promoted,
        "reason": reason,
        **pairs.to_dict(),
        "folder": recorded(folder),
    }
