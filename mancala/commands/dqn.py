"""Train the Sungka paper's DQN ("Mastering the Game of Sungka from Random Play").

    mancala dqn                                  # Sungka, first seat, vs luck
    mancala dqn --seat second --opponents luck,max,exact --episodes 20000
    mancala dqn --variant kalah --seat first
    mancala dqn --openings 2      # episodes from 0..2 random first moves
    mancala dqn --encoder afterstate --hidden 512,512 --init runs/dqn/x.keras

The weights go to `runs/dqn/` (or `--out`), never over the shipped ones in
`mancala/models/`: `mancala promote runs/dqn dqn --variant sungka` puts them there only if its
gate shows them stronger. `--init` starts from saved weights of the same form, measured
at episode 0 so that nothing weaker than them is kept.

The setup, and the choices the paper leaves open, are told in `mancala.learn.dqn`. Every
`--eval-every` episodes the net (epsilon 0.01) plays `--eval-games` games against luck,
max and exact: a progress line, and the learning curve goes to a PNG and JSON beside the
weights. The weights saved are those of the evaluation with the highest mean win rate
(`--keep worst`: the highest lowest win rate of the three; `--keep last`: the final).
"""

from __future__ import annotations

import argparse
import sys

from mancala.ai.dqn import FORMS, SEATS, weights_path
from mancala.core.cli import command_parser, float_in, int_in, layer_sizes
from mancala.core.paths import RUNS_DIR
from mancala.core.stopping import run_command
from mancala.game_state import KALAH, SUNGKA
from mancala.learn.dqn import KEEP, PAPER_HIDDEN, train


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala dqn", __doc__)
    parser.add_argument("--variant", choices=(SUNGKA, KALAH), default=SUNGKA)
    parser.add_argument("--seat", choices=SEATS, default="first", help="the seat it learns")
    parser.add_argument("--episodes", type=int_in(1), default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="weights .keras (default runs/dqn/dqn-V-SEAT.keras)")
    parser.add_argument(
        "--opponents", default="luck", help="comma-separated players, one drawn per episode"
    )
    parser.add_argument("--eval-every", type=int_in(1), default=100)
    parser.add_argument("--eval-games", type=int_in(1), default=50)
    parser.add_argument(
        "--train-every", type=int_in(1), default=1, help="agent moves per train step"
    )
    parser.add_argument("--replay", type=int_in(1), default=2000, help="replay memory (moves)")
    parser.add_argument("--learning-rate", type=float_in(1e-6, 1.0), default=5e-4, help="Adam's")
    parser.add_argument("--keep", choices=tuple(KEEP), default="best")
    parser.add_argument(
        "--openings",
        type=int_in(0, 20),
        default=0,
        help="start each episode after 0..N random moves (0: the paper, from the start)",
    )
    parser.add_argument(
        "--encoder",
        choices=FORMS,
        default="houses",
        help="the net's input: the paper's houses, one-hot counts and both stores, or "
        "(afterstate) the one-hot board after each move, one value out "
        "(afterstate_tactics: with each side's next-move gains beside it)",
    )
    parser.add_argument(
        "--hidden", type=layer_sizes, default=PAPER_HIDDEN, help="hidden layer sizes (128,256)"
    )
    parser.add_argument(
        "--init", help="start from these .keras weights (same --encoder and --hidden)"
    )
    parser.add_argument(
        "--double",
        action="store_true",
        help="Double DQN's target: the acting net picks the next move, the target net values it",
    )
    args = parser.parse_args(argv)
    from mancala.ai.registry import split_names

    opponents = tuple(split_names(args.opponents))
    out = args.out or weights_path(args.variant, SEATS.index(args.seat), RUNS_DIR / "dqn")
    kept = f"{out} holds the weights saved at the last kept evaluation, whole"
    return run_command("mancala dqn", lambda: _train(args, opponents, out), kept)


def _train(args: argparse.Namespace, opponents: tuple[str, ...], out) -> int:
    from mancala.ai.registry import make_player

    for name in opponents:
        make_player(name)
    train(
        args.variant,
        SEATS.index(args.seat),
        args.episodes,
        args.seed,
        out,
        opponents or ("luck",),
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        train_every=args.train_every,
        replay_size=args.replay,
        learning_rate=args.learning_rate,
        keep=args.keep,
        openings=args.openings,
        encoder=args.encoder,
        hidden=args.hidden,
        init=args.init,
        double=args.double,
        log=lambda line: print(line, flush=True),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
