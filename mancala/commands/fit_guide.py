"""Fit the policy of az's Tak guide to the alpha-beta's values of every move, or to az's
own searches (`mancala.learn.guide_fit`).

    mancala fit guide mancala/data/tak/tak-s5-minimax-games.jsonl.xz --positions 6000
    mancala fit guide --size 6 --factor 2            # the evaluation times 2, unfitted
    mancala fit guide --selfplay 1000                # az's searches teach the shipped guide
    mancala promote runs/fit guide --variant tak     # through the gate

Positions are drawn from the recorded games and every legal move of each is searched
exactly at --depth plies with the board's evaluation; the policy weights are fitted by
cross-entropy to the softmax of those values at --temperature (flats), from the board's
evaluation weights times the factor that fits best (which the held-out positions judge
the fit against). With --factor F nothing is labelled or fitted: the policy is the
board's evaluation times F (which docs/tak.md compares with the fitted ones).

With --selfplay GAMES (expert iteration), az with the shipped guide of the board (or the
one of --guide PATH) plays GAMES games against itself from random 2-ply openings, each
move a Gumbel search of --simulations; the policy is fitted from the guide's own to the
searches' improved policies, and the value's scale is the guide's.

The guide (the policy weights and the value's --scale) is written atomically to
runs/fit/tak/az-guide-SIZE.json (or DIR/tak/ with --models DIR), with the command that
made it; the labels are saved beside it as they are made, so a labelling stopped goes on
where it was when the command is run again. `mancala promote DIR guide --variant tak`
then puts the guide in place of the shipped one through the gate.
"""

from __future__ import annotations

import hashlib
import shlex
import sys
from pathlib import Path

from mancala.core.cli import command_parser, float_in, int_in
from mancala.core.paths import FIT_DIR
from mancala.core.stopping import run_command
from mancala.games.tak.evaluate import fitted_weights
from mancala.games.tak.guide import GuideWeights, guide_file, read_guide, write_guide
from mancala.games.tak.pieces import PIECES

SCALE = 5.0  # flats: the value's scale, tanh(evaluation / scale)
SIMULATIONS = 200  # a self-play move's Gumbel search
GAMES_A_CHUNK = 20  # self-play games labelled and saved at once


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala fit guide", __doc__)
    parser.add_argument("paths", nargs="*", type=Path, help="JSONL files of Tak games")
    parser.add_argument("--size", type=int, choices=sorted(PIECES), default=5, help="board (5)")
    parser.add_argument("--positions", type=int_in(10, 1_000_000), default=6000)
    parser.add_argument("--depth", type=int_in(1, 6), default=3, help="plies of the labels (3)")
    parser.add_argument("--temperature", type=float_in(0.01, 100.0), default=0.1, help="flats")
    parser.add_argument("--scale", type=float_in(0.1, 1000.0), help=f"flats ({SCALE:g})")
    parser.add_argument("--ridge", type=float_in(0.0, 1e6), default=1e-4)
    parser.add_argument(
        "--factor", type=float_in(0.01, 100.0), help="the policy: the evaluation times this"
    )
    parser.add_argument(
        "--selfplay", type=int_in(1, 1_000_000), metavar="GAMES", help="games of az's searches"
    )
    parser.add_argument(
        "--simulations", type=int_in(2, 100_000), default=SIMULATIONS, help="a self-play move's"
    )
    parser.add_argument("--guide", type=Path, help="the guide that plays (the shipped one)")
    parser.add_argument("--models", type=Path, default=FIT_DIR, help="the output folder")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    command = shlex.join(["mancala", "fit", "guide", *(argv or sys.argv[1:])])
    path = guide_file(args.size, args.models)
    if args.factor is not None and args.selfplay is not None:
        parser.error("--factor and --selfplay are two ways to make the policy: choose one")
    if (args.factor is not None or args.selfplay is not None) and args.paths:
        parser.error("--factor and --selfplay take no games: the games are not labelled")
    if args.factor is not None:
        policy = args.factor * fitted_weights(args.size)
        scale = args.scale or SCALE
        write_guide(path, policy, scale, {"command": command, "factor": args.factor})
        print(f"wrote {path}", flush=True)
        return 0
    if args.selfplay is None:
        if not args.paths:
            parser.error("the games to label are needed (or --factor, or --selfplay)")
        parser.require_files(args.paths)
    elif args.guide is not None:
        parser.require_files([args.guide])
    kept = f"the labels made are kept in {path.parent}; run it again to go on"
    return run_command("mancala fit guide", lambda: fit(args, path, command), kept)


def fit(args, path: Path, command: str) -> int:
    from mancala.learn.guide_fit import fit as fit_policy
    from mancala.learn.guide_fit import judge

    if args.selfplay is None:
        data, start, temperature, scale, began = searched(args, path)
    else:
        data, start, temperature, scale, began = self_played(args, path)
    policy = fit_policy(data, start, temperature, args.ridge)
    held = data.where(data.held_out())
    before, after = judge(held, start, temperature), judge(held, policy, temperature)
    print(
        f"held out ({held.position.max() + 1} positions), {began} -> the fit: cross-entropy "
        f"{before[0]:.3f} -> {after[0]:.3f}, the search's best move first "
        f"{before[1]:.1%} -> {after[1]:.1%}",
        flush=True,
    )
    about = {
        "command": command,
        "positions": int(data.position.max() + 1),
        "held_out": {
            "start": {"cross_entropy": round(before[0], 4), "best_first": round(before[1], 4)},
            "fit": {"cross_entropy": round(after[0], 4), "best_first": round(after[1], 4)},
        },
    }
    write_guide(path, policy, scale, about)
    print(f"wrote {path}", flush=True)
    return 0


def searched(args, path: Path):
    """The alpha-beta's labels of positions of the games, and the fit's start: (labels,
    start, temperature, scale, what the start is)."""
    from mancala.learn.evaluation_fit import positions
    from mancala.learn.guide_fit import Labels, label, sharpest

    evaluation = fitted_weights(args.size)
    drawn = positions(args.paths, args.size, args.positions, args.seed)
    if not drawn:
        raise ValueError(
            f"no {args.size}x{args.size} positions in {', '.join(map(str, args.paths))}"
        )
    folder = path.with_name(f"{path.stem}-labels-d{args.depth}-n{args.positions}-s{args.seed}")
    print(f"the labels are kept in {folder}; run it again to go on", flush=True)
    data = Labels(folder).make(
        drawn, lambda part, done: label(part, evaluation, args.depth, done), f"depth {args.depth}"
    )
    factor = sharpest(data, evaluation, args.temperature)
    began = f"the evaluation times {factor:.3g}"
    return data, factor * evaluation, args.temperature, args.scale or SCALE, began


def self_played(args, path: Path):
    """The improved policies of az's self-play with the guide, and the fit's start (the
    guide's policy): (labels, start, temperature 1, the guide's scale, what it is)."""
    import random

    from mancala.ai.az import AZ
    from mancala.arena.openings import random_openings
    from mancala.games.tak.guide import shipped_guide
    from mancala.games.tak.state import TakState, new_tak
    from mancala.learn.guide_fit import Labels, self_play_label
    from mancala.nn_lib.policy_value import Guide

    source = args.guide or guide_file(args.size)
    guide: GuideWeights | None
    guide = read_guide(source, args.size) if args.guide else shipped_guide({"size": args.size})
    if guide is None:
        raise ValueError(
            f"no guide ships for {args.size}x{args.size} boards ({source}): make one first "
            "(--factor or games to label), or name one with --guide"
        )
    if args.scale is not None and args.scale != guide.scale:
        raise ValueError(f"the guide's value scale is {guide.scale:g}: --scale cannot change it")
    digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:8]
    folder = path.with_name(
        f"{path.stem}-selfplay-{digest}-g{args.selfplay}-n{args.simulations}-s{args.seed}"
    )
    print(f"the games' labels are kept in {folder}; run it again to go on", flush=True)
    net = Guide(TakState.game, {"size": args.size}, guide)
    player = AZ(args.seed, simulations=args.simulations, net=net)
    starts, _ = random_openings(new_tak(args.size), args.selfplay, random.Random(args.seed), 2)
    data = Labels(folder).make(
        list(enumerate(starts)),
        lambda part, done: self_play_label(part, player, args.seed, done),
        f"self-play at {args.simulations}",
        "game",
        GAMES_A_CHUNK,
    )
    return data, guide.policy, 1.0, guide.scale, f"{source.name}'s policy"


if __name__ == "__main__":
    sys.exit(main())
