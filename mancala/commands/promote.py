"""Put networks trained by hand in place of the shipped weights, only through the gate.

    mancala promote /tmp/mine nnx2h256             # DIR/kalah/nnx2h256.keras
    mancala promote /tmp/mine nnxa2h512 --variant sungka --gate-openings 300
    mancala promote runs/dqn dqn --variant sungka   # the DQN's two nets, one a seat
    mancala promote /tmp/mine cnn2x64h128 --variant tak  # DIR/tak/cnn2x64h128.keras
    mancala promote /tmp/mine az-net               # DIR/kalah/az-net.keras, played by az-solo

`mancala fit NAME --models DIR` writes DIR/GAME/NAME.keras (for Tak, whose networks
`mancala train` refits, copy a run's candidate there); this meets each named network of
DIR with the main job's promotion (mancala/learn/promotion.py): on Kalah(6,4) a gain
against perfect play on the whole-game set, then the gate's games against the weights in
mancala/models/ (or --models) and the fixed opponents, both seats. Only a candidate that
passes replaces them, and the replaced file is kept in mancala/models/replaced/GAME/. The
name `dqn` stands for the DQN's pair (DIR/GAME/dqn-first.keras and dqn-second.keras, as
`mancala dqn` saves them), which meets the shipped pair and luck, max and exact from
random 2-ply openings; both nets and their learning curves move together, the replaced
ones kept in mancala/models/replaced/. Either way the decision is appended to
DIR/gates.jsonl. The name `az-net` stands for the policy-value network
(DIR/GAME/az-net.keras), which plays its gate by its search without the solver's help
(az-solo:1000): on Kalah(6,4) against perfect play on the gate's set of solved positions
first, then the same games; on a board no solved set covers (Sungka), it plays as `az`
plays, 0.1 s a move, on the game's scoreboard (mancala/learn/scoreboard.py): the
candidate and the shipped network each against the game's anchors (or --gate-opponents)
and one another, on the first --gate-openings openings of its fixed set, paired opening
by opening, promoted on the game's main measure (on Sungka the margin; `--workers 2`
plays two games at once). Tak's `evaluation` (DIR/tak/evaluation-SIZE.json, `mancala fit
evaluation`) and `guide` (DIR/tak/az-guide-SIZE.json, `mancala fit guide`) play game
pairs at 0.1 s a move against what they would replace (the alpha-beta with the shipped
weights; the alpha-beta where az has nothing on the board). A guide where az plays the
board already (its guide, or its network) meets it on the scoreboard instead, as az-net
does on Sungka: both at 0.1 s a move against Tak's anchors (or --gate-opponents) and one
another, on the board's fixed set, promoted on the score.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mancala.commands.options import add_workers_arguments
from mancala.core.cli import command_parser, int_in
from mancala.core.paths import MODELS_DIR
from mancala.core.stopping import run_command
from mancala.games import DEFAULT_GAME, Capability, offers
from mancala.games.tak.state import TakState
from mancala.nn_lib.base import NET_GAMES, ZOO_GAMES, weights_path
from mancala.nn_lib.zoo import ZOO

DQN = "dqn"  # the name of the DQN's pair of nets
AZ_NET = "az-net"  # the policy-value network's
EVALUATION = "evaluation"  # Tak's alpha-beta's fitted weights (mancala fit evaluation)
GUIDE = "guide"  # az's guide on Tak (mancala fit guide)
TAK_FILES = (EVALUATION, GUIDE)


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala promote", __doc__)
    parser.add_argument("folder", type=Path, help="the candidates' weights folder (DIR)")
    parser.add_argument(
        "names",
        nargs="+",
        help=f"the networks: {', '.join(ZOO)}, {DQN} or {AZ_NET}; or Tak's {EVALUATION}, {GUIDE}",
    )
    parser.add_argument("--variant", choices=list(ZOO_GAMES), default=DEFAULT_GAME)
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="the shipped weights")
    parser.add_argument("--gate-openings", type=int_in(1, 10_000), default=200, help="x2 seats")
    parser.add_argument(
        "--gate-opponents", help="comma-separated (the main job's gate of the game)"
    )
    parser.add_argument("--seed", type=int, default=0)
    add_workers_arguments(parser)
    args = parser.parse_args(argv)
    for name in args.names:
        if name not in ZOO and name not in (DQN, AZ_NET, *TAK_FILES):
            parser.error(f"unknown network {name!r}; the zoo: {', '.join(ZOO)}; or {DQN}, {AZ_NET}")
    for name in set(TAK_FILES) & set(args.names):
        if not offers(args.variant, Capability.STACKS):
            parser.error(f"{name} is Tak's: --variant {TakState.game}")
    if DQN in args.names and args.variant not in NET_GAMES:
        parser.error(f"{DQN} plays {', '.join(NET_GAMES)}, not {args.variant}")
    kept = f"{args.models} is unchanged unless a line says promoted"
    return run_command("mancala promote", lambda: _promote(args), kept)


def _promote(args: argparse.Namespace) -> int:
    from mancala.ai.registry import check_names, split_names
    from mancala.arena.parallel import Workers
    from mancala.games import game, new_game
    from mancala.learn.promotion import (
        az_candidate,
        az_gate_opponents,
        dqn_candidate,
        gate_positions,
        offer,
        record_to,
        zoo_candidate,
    )
    from mancala.nn_lib.boards import board_rules
    from mancala.nn_lib.zoo import network

    given = args.gate_opponents
    opponents = split_names(given) if given else list(game(args.variant).gate)
    check_names(opponents)
    zoo = [name for name in args.names if name not in (DQN, AZ_NET, *TAK_FILES)]
    paths = {name: weights_path(name, args.variant, args.folder) for name in zoo}
    missing = [str(path) for path in paths.values() if not path.is_file()]
    if missing:
        raise ValueError(f"no weights at {', '.join(missing)}")
    nets = [network(name, path, args.variant).load() for name, path in paths.items()]
    record = record_to(args.folder / "gates.jsonl")
    if DQN in args.names:
        candidate = dqn_candidate(
            args.folder, args.models, args.variant, args.gate_openings, args.seed
        )
        print(offer(candidate, record), flush=True)
    solved = gate_positions(args.variant) if nets or AZ_NET in args.names else []
    if AZ_NET in args.names:
        anchors = az_gate_opponents(args.variant, opponents if given else (), bool(solved))
        check_names(anchors)
        with Workers(args.workers, args.address) as workers:
            candidate = az_candidate(
                args.folder, args.models, args.variant, anchors, args.gate_openings,
                args.seed, solved, workers,
            )  # fmt: skip
            print(offer(candidate, record), flush=True)
    for name in TAK_FILES:
        if name in args.names:
            anchors = opponents if given else None
            with Workers(args.workers, args.address) as workers:
                lines = _gate_tak_files(args, name, record, anchors, workers)
            print("\n".join(lines), flush=True)
    start = new_game(args.variant, **board_rules(args.variant))
    for net in nets:
        candidate = zoo_candidate(
            net, args.models, opponents, args.gate_openings, args.seed, solved, start
        )
        print(offer(candidate, record), flush=True)
    return 0


def _gate_tak_files(
    args: argparse.Namespace, name: str, record, anchors: list[str] | None, workers
) -> list[str]:
    """Each board's fitted evaluation weights (or az guide, by `name`: its scoreboard
    against `anchors`, else the game's, on `workers`) in the folder through their gate."""
    from mancala.games.tak.evaluate import weights_files
    from mancala.games.tak.guide import guide_files
    from mancala.learn.promotion import offer
    from mancala.learn.tak_fit import evaluation_candidate, guide_candidate

    files, kind = {
        EVALUATION: (weights_files, evaluation_candidate),
        GUIDE: (guide_files, guide_candidate),
    }[name]
    sizes = files(args.folder)
    if not sizes:
        raise ValueError(f"no {name} weights in {args.folder / TakState.game}")
    more = {"anchors": anchors, "workers": workers} if name == GUIDE else {}
    return [
        offer(kind(args.folder, args.models, size, args.gate_openings, args.seed, **more), record)
        for size in sizes
    ]


if __name__ == "__main__":
    sys.exit(main())
