"""Forever (until Ctrl+C or --batches K): random matches -> JSONL -> refit -> gated promotion.

    mancala train                       # the zoo, luck, greedy, minimax
    mancala train --resume              # continue the last run
    mancala train nn1h128 greedy minimax:4 --explore 0.2 --run small
    mancala train nnx2h256 greedy --record-only --teacher 10
    mancala train --variant sungka --record-only --teacher az:400
    mancala train --variant tak         # the zoo's Tak networks (5x5)
    mancala train --variant tak --size 6  # ... of 6x6, in mancala/models/tak-size6/

A run lives in runs/<name>/ (see mancala/learn/runs.py): its games, its candidate
weights, its learning curve, its gate decisions and its log. Each batch plays random
pairings of the players (each move a random legal one with probability --explore),
annotates every game with the teacher's value of each legal move (alpha-beta to
--teacher plies, or with --teacher az:N az's search of N simulations guided by the az-net
of the weights folder, once the expert check has shown it the stronger labeller:
mancala/learn/expert.py; naming az-net among the players closes the loop: each az-net the
gate promotes there guides the labels of the batches after it)
and appends it to the run's games the moment it ends. Then every
network is refit on the examples recorded so far (a sample of at most --sample of them:
the labels that ship for the board (on Kalah its exact positions alone), the run's games
and those beside --out) and
saved as the run's candidate. Every
--gate-every batches each candidate meets the promotion gate (mancala/learn/gate.py):
only a candidate shown stronger than the weights in mancala/models/ replaces them,
and the replaced file is kept in mancala/models/replaced/. So a run can only make the
shipped zoo stronger.
With --record-only the networks play with their current weights and nothing is refit:
the games of a chosen network against chosen opponents, annotated by a deeper teacher,
for `mancala fit` to learn from.
--workers N plays and annotates the games N ways at once on Ray (--address joins a
cluster; docs/ray.md); the records do not depend on N, each game being seeded alone.
On Ray the workers play the next batch while this process refits, measures and gates
(with the weights before those refits; --wait-for-refits waits for them instead), a batch
as long as the last refits and gates took (at least --games games, at most 16 times as
many), and each batch's line says the share of the run in which the workers were busy.
Ctrl+C (exit 130) or SIGTERM (exit 143) loses no recorded game and leaves no half-written
weights file; --resume continues from there.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from mancala.ai.registry import check_can_play, check_names, split_names
from mancala.arena.records import record_files
from mancala.core.cli import add_alias, command_parser, fail, float_in, int_in
from mancala.core.stopping import run_command, stop_if_asked
from mancala.games import Capability, game, new_game, offers
from mancala.games.options import add_game_options, game_options
from mancala.learn.gate import lead_for
from mancala.learn.labels import shipped_labels
from mancala.learn.pool import make_pool
from mancala.learn.practice import practice_arguments
from mancala.learn.promotion import (
    az_gate_opponents,
    gate_and_promote,
    gate_and_promote_az,
    gate_positions,
    value_kept,
)
from mancala.learn.runs import Run
from mancala.learn.scalars import Scalars, flatten
from mancala.learn.settings import TrainSettings
from mancala.nn_lib.base import LEARNING_RATE, ZOO_GAMES
from mancala.nn_lib.boards import board_rules
from mancala.nn_lib.policy_value import NAME as AZ_NET
from mancala.nn_lib.policy_value import weights_file
from mancala.nn_lib.zoo import ZOO, network, networks_for

EXPERT_CHECK = 100  # held-out positions, or game pairs, of the expert check


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala train", __doc__)
    parser.add_argument(
        "players",
        nargs="*",
        help="players (default: the zoo's networks of the game and its practice players: "
        + "; ".join(f"{name}: {', '.join(game(name).practice)}" for name in ZOO_GAMES)
        + f"); {AZ_NET} (sowing games, default board) is refit and gated beside them but "
        "plays no games",
    )
    parser.add_argument("--per-pairing", type=int_in(1), default=8, help="games a pairing (8)")
    parser.add_argument("--epochs", type=int_in(1), default=1, help="epochs over the sample")
    parser.add_argument(
        "--learning-rate",
        type=float_in(1e-6, 1.0),
        default=LEARNING_RATE,
        help=f"Adam's ({LEARNING_RATE:g}; lower to fine-tune shipped weights)",
    )
    parser.add_argument(
        "--missed-weight",
        type=float_in(1.0, 100.0),
        default=1.0,
        help="the loss's weight of a position where the network's first choice is not the "
        "teacher's (1: every position alike)",
    )
    parser.add_argument(
        "--eval-games", type=int_in(1), default=20, help="openings a measurement (x2 seats)"
    )
    add_alias(parser, "--eval", "eval_games", type=int_in(1))
    parser.add_argument(
        "--record-only", action="store_true", help="play and record; refit no network"
    )
    add_game_options(
        parser,
        tuple(ZOO_GAMES),
        "the game the networks learn, on its default board unless its rules are given "
        "(--size 6): Kalah(6,4), Sungka(7,7) or Tak 5x5, komi 0 (kalah)",
    )
    parser.add_argument(
        "--labels",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="labels the refits learn from beside the games (default: those shipped "
        "for the board, mancala/data/GAME/; --labels alone: none)",
    )
    parser.add_argument(
        "--exact-games",
        action="store_true",
        help="on a board the solver reaches, learn from the run's games as from the labels: "
        "their positions whose every move is proved exact alone",
    )
    parser.add_argument("--run", help="the run's name in runs/, or a folder (default: the time)")
    parser.add_argument("--resume", action="store_true", help="continue --run (or the last)")
    parser.add_argument(
        "--gate-every", type=int_in(1), default=1, help="batches between promotion gates (1)"
    )
    parser.add_argument(
        "--gate-openings",
        type=int_in(1, 10_000),
        default=200,
        help="openings of the gate, each played in both seats (200)",
    )
    parser.add_argument(
        "--gate-opponents",
        help="fixed opponents of the gate, comma-separated ("
        + "; ".join(f"{name}: {','.join(game(name).gate)}" for name in ZOO_GAMES)
        + f"; {AZ_NET}'s where no solved set judges it: the game's anchors)",
    )
    parser.add_argument(
        "--expert-check",
        type=int_in(0, 10_000),
        default=EXPERT_CHECK,
        metavar="K",
        help="with --teacher az:N, K held-out positions (Kalah) or game pairs of the fixed "
        f"set (Sungka) that must show az the stronger labeller first ({EXPERT_CHECK}; 0: none)",
    )
    parser.add_argument(
        "--wait-for-refits",
        action="store_true",
        help="with --workers N, play each batch only once the refits of the last are done, "
        "by their weights (by default Ray workers play the next batch during the refits, "
        "with the weights before them)",
    )
    practice_arguments(parser, None, 240)
    args = parser.parse_args(argv)
    specs = args.players or [*networks_for(args.variant), *game(args.variant).practice]
    given = split_names(args.gate_opponents) if args.gate_opponents else []
    args.gate_opponents_given = bool(given)
    args.gate_opponents = given or [*game(args.variant).gate]
    try:
        args.rules = board_rules(args.variant, game_options(args))
        check_names(specs + args.gate_opponents)
        if len(set(specs) - {AZ_NET}) < 2:
            raise ValueError(f"name at least two different players ({AZ_NET} plays no games)")
        check_players(specs + args.gate_opponents, args.variant, args.rules)
        run = Run.open(args.run, args.resume)
    except ValueError as error:
        return fail("mancala train", str(error))
    args.out = args.out or run.games
    kept = (
        f"every finished game is in {args.out}; the weights files are whole; "
        f"continue with --resume --run {run.name}"
    )
    job = TrainSettings.from_args(args, specs)
    return run_command(
        "mancala train", lambda: _run_on_workers(job, run, time.perf_counter()), kept
    )


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


def _run_on_workers(job: TrainSettings, run: Run, began: float) -> int:
    """`_run` with its games played on --workers (stopped however the run ends)."""
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
    specs = list(job.players)
    models = job.models or MODELS_DIR
    game_start = new_game(job.variant, **job.rules)
    nets, players = make_pool(specs, models, job.seed, run, job.variant, job.rules)
    if job.record_only:
        nets = {}
    beside = [] if job.out == run.games else record_files(job.out.parent)
    recorded = sorted(path for path in {run.games, *beside} if path.is_file())
    depth, simulations = job.teacher or (game(job.variant).teacher_depth, 0)
    guide = weights_file(job.variant, models)  # az-net's, which guides an az teacher
    if simulations and job.expert_check:
        depth, simulations = _expert_checked(job, game_start, simulations, guide, run.log)
    labels = shipped_labels(game_start) if job.labels is None else job.labels
    if nets and labels:
        run.log(f"reading the labels of {len(labels)} file(s) for the refits")
    seed = resumed_seed(job.seed, job.out)
    practice = Practice(
        job.out,
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
    given = job.gate_opponents if job.gate_opponents_given else ()
    az_opponents = az_gate_opponents(job.variant, given, bool(solved))
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
                    decided = gate_and_promote_az(
                        run.candidates, models, job.variant, az_opponents,
                        job.gate_openings, batch, record, solved, workers, lead,
                    )  # fmt: skip
                else:
                    decided = gate_and_promote(
                        net, models, job.gate_opponents, job.gate_openings, batch, record,
                        solved, game_start, lead,
                    )  # fmt: skip
                run.log(decided)
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


if __name__ == "__main__":
    sys.exit(main())
