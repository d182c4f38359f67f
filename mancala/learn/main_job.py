"""The main job (`mancala train`): batches of random matches between the zoo's networks
and the game's practice players, recorded to JSONL with the teacher's labels, then every
network refit, measured and gated (`mancala.learn.gate`), batch after batch.

`run_main_job` runs it from its typed settings (`TrainSettings`) in a run folder (`Run`);
on Ray workers the next batch is played while this process refits, measures and gates,
a batch as long as the last refits and gates took (`games_to_fill`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

from mancala.ai.registry import check_can_play
from mancala.arena.records import record_files
from mancala.core.stopping import stop_if_asked
from mancala.games import Capability, game, new_game, offers
from mancala.learn.gate import lead_for
from mancala.learn.labels import shipped_labels
from mancala.learn.pool import make_pool
from mancala.learn.promotion import (
    az_candidate,
    az_gate_opponents,
    gate_positions,
    offer,
    value_kept,
    zoo_candidate,
)
from mancala.learn.runs import Run
from mancala.learn.scalars import Scalars, flatten
from mancala.learn.settings import TrainSettings
from mancala.nn_lib.boards import board_rules
from mancala.nn_lib.policy_value import NAME as AZ_NET
from mancala.nn_lib.policy_value import weights_file
from mancala.nn_lib.zoo import ZOO, network


def check_players(specs: list[str], variant: str, rules: dict | None = None) -> None:
    """ValueError naming the first player of `specs` that cannot play the board of
    `variant` with `rules` (a zoo network: without an encoder for it; weights it may not
    have yet, it is trained here)."""
    rules = board_rules(variant, rules)
    start = new_game(variant, **rules)
    for spec in specs:
        if spec in ZOO:
            network(spec, None, variant, rules)
    if AZ_NET in specs and (
        not offers(variant, Capability.SOWING) or rules != board_rules(variant, None)
    ):
        raise ValueError(f"{AZ_NET} learns in the main job on a sowing game's default board")
    check_can_play([spec for spec in specs if spec not in {*ZOO, AZ_NET}], start)


def run_main_job(job: TrainSettings, run: Run, began: float) -> int:
    """The main job `job` in the run folder `run`, its games played on its workers
    (stopped however the run ends); `began`: its start (`time.perf_counter`)."""
    from mancala.arena.parallel import Workers

    with Workers(job.workers, job.address) as workers:
        return _run(job, run, began, workers)


def _expert_checked(
    job: TrainSettings, start, simulations: int, guide: Path, log: Callable[[str], None]
) -> tuple[int, int]:
    """(depth, simulations) of the run's teacher: az's search of `simulations`, guided by
    the network in `guide` (the shipped one where there is none), where the expert check
    shows it the stronger labeller, else the game's alpha-beta."""
    from mancala.learn.expert import check_expert
    from mancala.learn.practice import guiding
    from mancala.learn.teacher import Teacher

    depth = game(job.variant).teacher_depth
    weights = guiding(guide)[0]
    search, alpha_beta = (
        Teacher(d, job.exact_nodes, game=start.game, simulations=n, weights=weights)
        for d, n in ((0, simulations), (depth, 0))
    )
    checked = check_expert(start, search, alpha_beta, job.expert_check, job.expert_check, log)
    log(f"expert check: {checked.said}")
    return (0, simulations) if checked.stronger else (depth, 0)


def _run(job: TrainSettings, run: Run, began: float, workers) -> int:
    from mancala.ai.registry import make_player
    from mancala.arena.parallel import Seat
    from mancala.core.paths import MODELS_DIR
    from mancala.learn.curve import LearningCurve, win_rate
    from mancala.learn.learner import player_of
    from mancala.learn.practice import Practice, games_to_fill

    run.log(f"run {run.name} in {run.folder}{' (resumed)' if job.resume else ''}")
    out = job.out or run.games
    specs = list(job.players)
    models = job.models or MODELS_DIR
    game_start = new_game(job.variant, **job.rules)
    nets, players = make_pool(specs, models, job.seed, run, job.variant, job.rules)
    if job.record_only:
        nets = {}
    beside = [] if out == run.games else record_files(out.parent)
    recorded = sorted(path for path in {run.games, *beside} if path.is_file())
    depth, simulations = job.teacher or (game(job.variant).teacher_depth, 0)
    guide = weights_file(job.variant, models)  # az-net's, which guides an az teacher
    if simulations and job.expert_check:
        depth, simulations = _expert_checked(job, game_start, simulations, guide, run.log)
    labels = shipped_labels(game_start) if job.labels is None else job.labels
    if nets and labels:
        run.log(f"reading the labels of {len(labels)} file(s) for the refits")
    seed = resumed_seed(job.seed, out)
    practice = Practice(
        out,
        depth,
        seed,
        recorded if nets else None,
        job.exact_nodes,
        job.keep,
        game_start,
        workers=workers,
        teacher_simulations=simulations,
        labels=labels if nets else (),
        teacher_weights=guide if simulations else None,
        exact_games=job.exact_games,
    )
    if nets:
        games, seen = practice.labelled
        exact = "exactly " if offers(job.variant, Capability.SOLVER) else ""
        exact = f"{seen:,} {exact}labelled positions of {games:,} games; " if labels else ""
        run.log(
            f"{exact}{practice.store.games - games} annotated game(s) "
            f"({practice.store.seen - seen} positions) already recorded; "
            f"teacher {practice.teacher.name}"
        )
    curve = LearningCurve(run.curve)
    scalars = Scalars(run.folder / "tensorboard")
    offset = curve.points[-1]["minutes"] if curve.points else 0.0
    rng = random.Random(seed)
    # the fixed opponents every network's win rate is measured against, batch after batch
    yardsticks = {"greedy": make_player("greedy", seed=1), "luck": make_player("luck", seed=1)}
    solved = gate_positions(job.variant, job.rules)
    opponents = job.gate_opponents or game(job.variant).gate
    az_opponents = az_gate_opponents(job.variant, job.gate_opponents, bool(solved))
    ahead = not job.wait_for_refits and workers.local is None

    def hand_out(games: int):
        """A batch of about `games` games, handed to the workers (on Ray, played from now
        on by the networks as they are now)."""
        seats = {spec: Seat.of(player, job.explore) for spec, player in players.items()}
        playing = [spec for spec in specs if spec in players]
        pairings = [rng.sample(playing, 2) for _ in range(max(1, games // job.per_pairing))]
        seated = [(seats[one], seats[two]) for one, two in pairings]
        return practice.begin(seated, job.per_pairing, ahead)

    batch, playing, size, handed, refitting = 0, None, job.games, 0.0, 0.0
    while job.batches is None or batch < job.batches:
        stop_if_asked()
        batch += 1
        start = time.perf_counter()
        if playing is not None:  # the time of the last refits and gates
            refitting = start - handed
        games_before, busy_before = practice.recorded, practice.busy
        practice.finish(playing or hand_out(size))
        played = time.perf_counter() - start
        last = batch == job.batches
        playing = None
        if ahead and not last:  # the next batch, played during the refits and sized to them
            done, worked = practice.recorded - games_before, practice.busy - busy_before
            size = games_to_fill(job.games, done, worked, workers.count, refitting)
            size = job.per_pairing * max(1, size // job.per_pairing)  # as hand_out plays
            playing, handed = hand_out(size), time.perf_counter()
        if not nets:  # only recording
            teacher = practice.teacher
            exact = f", {teacher.exact} of them exact" if teacher.exact_nodes else ""
            print(
                f"batch {batch}: {practice.recorded} games recorded "
                f"({teacher.exact + teacher.searched} positions valued{exact}), {played:.0f} s, "
                f"workers busy {practice.busy_share():.0%}, "
                f"total {(time.perf_counter() - began) / 60:.1f} min",
                flush=True,
            )
            continue
        losses = {
            name: practice.refit(
                net,
                job.sample,
                job.epochs,
                progress=_saying(f"refit {name}"),
                learning_rate=job.learning_rate,
                missed_weight=job.missed_weight,
            )
            for name, net in nets.items()
        }
        alone = {name: player_of(net) for name, net in nets.items()}  # each network alone
        rates = {
            label: {
                name: win_rate(player, opponent, job.eval_games, start=game_start)
                for name, player in alone.items()
            }
            for label, opponent in yardsticks.items()
        }
        kept = {name: value_kept(each, solved) for name, each in alone.items()} if solved else {}
        minutes = offset + (time.perf_counter() - began) / 60
        point = {
            "batch": batch,
            "minutes": round(minutes, 2),
            "games": practice.store.games,
            "positions": practice.store.seen,
            "busy": round(practice.busy_share(), 4),
            "rates": rates,
            "kept": kept,
            "loss": losses,
        }
        curve.add(point)
        scalars.write(batch, flatten(point))
        against = " ".join(f"{n} {r:.0f}" for n, r in rates["greedy"].items()) or "-"
        keeping = " ".join(f"{n} {k:.1f}" for n, k in kept.items())
        run.log(
            f"batch {batch}: {practice.recorded} games recorded ({practice.store.games} in all, "
            f"{practice.store.seen} positions, {len(practice.store)} kept in memory) | "
            f"% won vs greedy: {against}"
            + (f" | % value kept: {keeping}" if kept else "")
            + f" | play {played:.0f} s, batch {time.perf_counter() - start:.0f} s, "
            f"workers busy {practice.busy_share():.0%}"
            + (f", next batch {size} games" if playing is not None else "")
            + f", total {minutes:.1f} min, peak memory {peak_megabytes():,.0f} MB"
        )
        if batch % job.gate_every == 0 or batch == job.batches:
            promoted: list[str] = []
            for net in nets.values():
                record = gate_recorder(run, scalars, batch, promoted)
                lead = lead_for(run.tries(net.name))
                if net.name == AZ_NET:
                    candidate = az_candidate(
                        run.candidates, models, job.variant, az_opponents,
                        job.gate_openings, batch, solved, workers, lead,
                    )  # fmt: skip
                else:
                    candidate = zoo_candidate(
                        net, models, opponents, job.gate_openings, batch, solved,
                        game_start, lead,
                    )  # fmt: skip
                run.log(offer(candidate, record))
            curve.mark("promoted", promoted)
    return 0


def resumed_seed(seed: int, out: Path) -> int:
    """The seed of the games a run goes on with: `seed` in a new run, and after the
    lines already in `out`, another one for each count, so that a resumed run does
    not play its first games again."""
    if not out.is_file():
        return seed
    with out.open("rb") as lines:
        done = sum(1 for _ in lines)
    return seed + 1_000_003 * done if done else seed


def gate_recorder(run: Run, scalars: Scalars, batch: int, promoted: list[str]):
    """Record a gate's decision in the run's gates.jsonl and its TensorBoard scalars, and
    a promoted network's name in `promoted`."""

    def record(network: str, decision: dict) -> None:
        run.record_gate(network, decision)
        if decision["promoted"]:
            promoted.append(network)
        head = decision.get("head_to_head")
        scalars.write(
            batch,
            {f"gate/{network}/promoted": float(decision["promoted"])}
            | ({f"gate/{network}/head_to_head": head} if head is not None else {}),
        )

    return record


def peak_megabytes() -> float:
    """The most memory this process has held so far (resident, MB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _saying(what: str) -> Callable[[str], None]:
    """A progress callback that prints its lines after `what` and the time."""
    began = time.perf_counter()
    return lambda line: print(
        f"{what}: {line}, {(time.perf_counter() - began) / 60:.1f} min", flush=True
    )
