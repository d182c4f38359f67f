"""Refit one network of the zoo from recorded games (training/*.jsonl, or the given files).

    mancala fit nn1h128                      # from every training/*.jsonl
    mancala fit cnns1h128 --epochs 10 training/random_train.jsonl
    mancala fit nn2h80 --fresh               # start from untrained weights
    mancala fit az-net --value-scale 24 --init mancala/models/kalah/az-net.keras \
        --models /tmp/exact --settle --exact-only mancala/data/kalah/*.jsonl.xz
    mancala fit nnx2h256 --init mancala/models/kalah/nnx2h256.keras --models /tmp/exact \
        --settle --learning-rate 0.0003 --epochs 2 --exact-only mancala/data/kalah/*.jsonl.xz
                                             # the shipped weights, refit on exact labels

The examples are the games' positions with the teacher's value of every legal move (the
"values" key that mancala train and mancala adversary record); games without it are
counted and left out. Files are streamed in chunks of --chunk positions, so they need not
fit in memory (one chunk is kept between epochs). Corrupt lines are skipped and counted.
The network starts from its weights in the output folder when there are some, else from
the shipped ones (unless --fresh, or --init FILE: that file's weights), and is saved
atomically to runs/fit/GAME/NAME.keras (or DIR/GAME/ with --models DIR), GAME the
--variant (kalah): never over the shipped weights unless asked to with --models
mancala/models. `mancala promote DIR NAME` then puts a network fitted in DIR in place of
the shipped one through the gate. The fit itself: mancala/learn/record_fit.py. The name
`az-net` fits the policy-value network of the sowing games (docs/az.md) on the same
records: its policy a soft choice among the teacher's move values (a move one seed worse
gets 1/e the weight), its value the best move's final margin m as tanh(m / --value-scale)
plus a score utility weighted by --score-weight (`mancala.games.sowing.margin_value`; the
network's own unless given; a fresh one's 2 seeds and 0).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mancala.core.cli import command_parser, float_in, int_in
from mancala.core.paths import FIT_DIR
from mancala.core.stopping import run_command
from mancala.games import DEFAULT_GAME
from mancala.nn_lib.base import LEARNING_RATE, NET_GAMES
from mancala.nn_lib.zoo import ZOO

AZ_NET = "az-net"  # the policy-value network (mancala/nn_lib/policy_value.py)


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala fit", __doc__)
    parser.add_argument("name", help="the network: " + ", ".join([*ZOO, AZ_NET]))
    parser.add_argument("paths", nargs="*", type=Path, help="JSONL files (default training/)")
    parser.add_argument("--epochs", type=int_in(1), default=5, help="passes over the data (5)")
    parser.add_argument("--batch-size", type=int_in(1), default=256)
    parser.add_argument("--chunk", type=int_in(1), default=500_000, help="positions held at once")
    parser.add_argument("--fresh", action="store_true", help="start from untrained weights")
    parser.add_argument("--init", type=Path, metavar="FILE", help="start from these weights")
    parser.add_argument(
        "--models", type=Path, default=FIT_DIR, help="the fitted weights' folder (runs/fit)"
    )
    parser.add_argument(
        "--learning-rate",
        type=float_in(1e-6, 1.0),
        default=LEARNING_RATE,
        help=f"Adam's ({LEARNING_RATE:g})",
    )
    parser.add_argument(
        "--exact-only", action="store_true", help="learn the positions of exact labels alone"
    )
    parser.add_argument(
        "--settle",
        action="store_true",
        help="the rate falls from --learning-rate to a tenth of it over the fit (a refit)",
    )
    parser.add_argument(
        "--average",
        action="store_true",
        help="with --settle: keep the mean of the last pass's weights (SWA)",
    )
    parser.add_argument(
        "--keep-above",
        type=int_in(0),
        metavar="SEEDS",
        help="positions of more seeds in the houses learn the starting weights' values",
    )
    parser.add_argument("--objective", choices=["policy", "values"], default="policy")
    parser.add_argument(
        "--variant", choices=list(NET_GAMES), default=DEFAULT_GAME, help="the game (kalah)"
    )
    parser.add_argument(
        "--value-scale",
        type=float_in(0.5, 100.0),
        metavar="SEEDS",
        help="az-net: its value of a final margin m is tanh(m / SEEDS)",
    )
    parser.add_argument(
        "--score-weight",
        type=float_in(0.0, 0.9),
        metavar="W",
        help="az-net: the share of a score utility in its value (0: none)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    settings = {key: value for key, value in vars(args).items() if key != "paths"}
    return run_command(
        "mancala fit",
        lambda: _fit(settings, tuple(args.paths)),
        "the weights file is left as it was",
    )


def _fit(settings: dict, paths: tuple[Path, ...]) -> int:
    from mancala.learn.record_fit import RecordFit, fit_records

    fit = RecordFit(paths=paths, **settings)
    print(f"saved {fit_records(fit, lambda line: print(line, flush=True))}")
    gate = ["mancala", "promote", str(fit.models), fit.name, "--variant", fit.variant]
    print(f"`{' '.join(gate)}` puts it through the gate in place of the shipped weights")
    return 0


if __name__ == "__main__":
    sys.exit(main())
