"""Fit the policy of az's Tak guide to the alpha-beta's values of every move
(`mancala.learn.guide_fit`).

    mancala fit guide mancala/data/tak/tak-s5-minimax-games.jsonl.xz --positions 6000
    mancala fit guide --size 6 --factor 2            # the evaluation times 2, unfitted
    mancala promote runs/fit guide --variant tak     # through the gate

Positions are drawn from the recorded games and every legal move of each is searched
exactly at --depth plies with the board's evaluation; the policy weights are fitted by
cross-entropy to the softmax of those values at --temperature (flats), from the board's
evaluation weights times the factor that fits best (which the held-out positions judge
the fit against). With --factor F nothing is labelled or fitted: the policy is the
board's evaluation times F (which docs/tak.md compares with the fitted ones). The guide
(the policy weights and the value's --scale) is written atomically to
runs/fit/tak/az-guide-SIZE.json (or DIR/tak/ with --models DIR), with the command that
made it; the labels are saved beside it as they are made, so a
labelling stopped goes on where it was when the command is run again. `mancala promote
DIR guide --variant tak` then puts the guide in place of the shipped one through the gate.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from mancala.core.cli import command_parser, float_in, int_in
from mancala.core.paths import FIT_DIR
from mancala.core.stopping import run_command
from mancala.games.tak.evaluate import fitted_weights
from mancala.games.tak.guide import guide_file, write_guide
from mancala.games.tak.pieces import PIECES

SCALE = 5.0  # flats: the value's scale, tanh(evaluation / scale)


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala fit guide", __doc__)
    parser.add_argument("paths", nargs="*", type=Path, help="JSONL files of Tak games")
    parser.add_argument("--size", type=int, choices=sorted(PIECES), default=5, help="board (5)")
    parser.add_argument("--positions", type=int_in(10, 1_000_000), default=6000)
    parser.add_argument("--depth", type=int_in(1, 6), default=3, help="plies of the labels (3)")
    parser.add_argument("--temperature", type=float_in(0.01, 100.0), default=0.1, help="flats")
    parser.add_argument("--scale", type=float_in(0.1, 1000.0), default=SCALE, help="flats")
    parser.add_argument("--ridge", type=float_in(0.0, 1e6), default=1e-4)
    parser.add_argument(
        "--factor", type=float_in(0.01, 100.0), help="the policy: the evaluation times this"
    )
    parser.add_argument("--models", type=Path, default=FIT_DIR, help="the output folder")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    command = shlex.join(["mancala", "fit", "guide", *(argv or sys.argv[1:])])
    path = guide_file(args.size, args.models)
    if args.factor is not None:
        if args.paths:
            parser.error("--factor takes no games: the policy is not fitted")
        policy = args.factor * fitted_weights(args.size)
        write_guide(path, policy, args.scale, {"command": command, "factor": args.factor})
        print(f"wrote {path}", flush=True)
        return 0
    if not args.paths:
        parser.error("the games to label are needed (or --factor)")
    parser.require_files(args.paths)
    kept = f"the labels made are kept in {labels_folder(path, args)}; run it again to go on"
    return run_command("mancala fit guide", lambda: fit(args, path, command), kept)


def labels_folder(path: Path, args) -> Path:
    """Where the labels of a fit are saved: one folder for each labelling's settings."""
    return path.with_name(f"{path.stem}-labels-d{args.depth}-n{args.positions}-s{args.seed}")


def fit(args, path: Path, command: str) -> int:
    from mancala.learn.evaluation_fit import positions
    from mancala.learn.guide_fit import Labels, judge, sharpest
    from mancala.learn.guide_fit import fit as fit_policy

    evaluation = fitted_weights(args.size)
    drawn = positions(args.paths, args.size, args.positions, args.seed)
    if not drawn:
        raise ValueError(
            f"no {args.size}x{args.size} positions in {', '.join(map(str, args.paths))}"
        )
    data = Labels(labels_folder(path, args)).make(drawn, evaluation, args.depth)
    factor = sharpest(data, evaluation, args.temperature)
    start = factor * evaluation
    policy = fit_policy(data, start, args.temperature, args.ridge)
    held = data.where(data.held_out())
    before, after = judge(held, start, args.temperature), judge(held, policy, args.temperature)
    print(
        f"held out ({held.position.max() + 1} positions), the evaluation times "
        f"{factor:.3g} -> the fit: cross-entropy {before[0]:.3f} -> "
        f"{after[0]:.3f}, the search's best move first {before[1]:.1%} -> {after[1]:.1%}",
        flush=True,
    )
    about = {
        "command": command,
        "positions": int(data.position.max() + 1),
        "held_out": {
            "evaluation": {"cross_entropy": round(before[0], 4), "best_first": round(before[1], 4)},
            "fit": {"cross_entropy": round(after[0], 4), "best_first": round(after[1], 4)},
        },
    }
    write_guide(path, policy, args.scale, about)
    print(f"wrote {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
