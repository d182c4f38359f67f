"""Put newly trained DQN nets in place of the shipped ones, only through the gate.

    mancala promote dqn runs/dqn                 # Sungka, both seats
    mancala promote dqn runs/dqn --openings 200

The nets of both seats in the folder (dqn-VARIANT-first.keras and -second.keras, as
`mancala dqn` saves them) play the shipped pair at the promotion gate
(`mancala.learn.gate`): head to head and against luck, max and exact, from `--openings`
random openings of 2 plies, each in both seats. When the gate promotes, both nets and
their learning curves are copied into mancala/models/ and the files they replace are kept
in mancala/models/replaced/. Either way the gate's record is appended to the folder's
gates.jsonl.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from mancala.ai.dqn import SEATS, DQNPlayer, weights_path
from mancala.arena.records import append_games
from mancala.core.cli import command_parser, int_in
from mancala.core.paths import MODELS_DIR
from mancala.core.stopping import run_command
from mancala.game_state import GameState
from mancala.learn.gate import gate, promote

OPPONENTS = ("luck", "max", "exact")
CURVES = (".png", ".json")  # the learning curve beside each net


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala promote dqn", __doc__)
    parser.add_argument("folder", type=Path, help="the candidate nets")
    parser.add_argument("--variant", choices=("sungka", "kalah"), default="sungka")
    parser.add_argument("--openings", type=int_in(1, 10_000), default=100, help="x2 seats (100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="the shipped nets' folder")
    args = parser.parse_args(argv)
    kept = f"{args.models} is unchanged unless the gate's line says promoted"
    return run_command("mancala promote dqn", lambda: _promote(args), kept)


def _promote(args: argparse.Namespace) -> int:
    paths = [
        (
            weights_path(args.variant, seat, args.folder),
            weights_path(args.variant, seat, args.models),
        )
        for seat in range(len(SEATS))
    ]
    missing = [str(path) for pair in paths for path in pair if not path.is_file()]
    if missing:
        raise ValueError(f"no DQN weights at {', '.join(missing)}")
    candidate = DQNPlayer(seed=args.seed, models_dir=args.folder)
    incumbent = DQNPlayer(seed=args.seed, models_dir=args.models)
    candidate.name = incumbent.name = "dqn"
    start = GameState.new(args.variant)
    result = gate(
        candidate, incumbent, OPPONENTS, start, openings=args.openings, plies=2, seed=args.seed
    )
    now = datetime.now(UTC).isoformat(timespec="seconds")
    record = {"network": "dqn", "time": now, "variant": args.variant, **result.to_dict()}
    record["folder"] = str(args.folder)
    if result.promoted:
        keep = args.models / "replaced"
        for new, old in paths:
            record.setdefault("kept", []).append(str(promote(new, old, keep)))
            for suffix in CURVES:
                if new.with_suffix(suffix).is_file():
                    promote(new.with_suffix(suffix), old.with_suffix(suffix), keep)
    append_games(args.folder / "gates.jsonl", [record])  # one whole line
    verdict = "promoted" if result.promoted else "kept the shipped nets"
    print(f"dqn {args.variant}: {verdict}: {result.reason}")
    for spec, row in result.against.items():
        print(f"  against {spec}: candidate {row['candidate']:.3f}, shipped {row['incumbent']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
