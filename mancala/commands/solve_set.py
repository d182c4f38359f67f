"""Make (or finish) a set of solved positions from every stage of real Kalah games.

    mancala solve set                      # the shipped whole-game set
    mancala solve set --positions 50 --out /tmp/set.jsonl --houses 4 --seeds 3

Positions are solved from the endgame back to the opening (the early ones take the solver
minutes each); each is appended the moment it is proved, so Ctrl+C or SIGTERM loses at
most the one being proved, and running the same command again continues. The set is
what `mancala measure perfect` and the learning curve measure players against (see
mancala/arena/solved_set.py for the file's format).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from tqdm import tqdm

from mancala.arena.solved_set import WHOLE_GAME, build
from mancala.core.cli import command_parser, fail, int_in
from mancala.core.stopping import run_command
from mancala.game_state import GameState
from mancala.games import games_with, new_game
from mancala.games.options import add_game_options, game_options
from mancala.games.sowing.solver.options import add_solver_options, solver_for

MAX_POSITIONS = 10_000


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala solve set", __doc__)
    parser.add_argument(
        "--positions", type=int_in(1, MAX_POSITIONS), default=500, help="positions (500)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=WHOLE_GAME, help="the set's file")
    add_game_options(parser, games_with("solver"))
    add_solver_options(parser)
    args = parser.parse_args(argv)
    try:
        from mancala.games.sowing.solver import check_solvable

        start = new_game(args.variant, **game_options(args))
        check_solvable(start)
    except ValueError as error:
        return fail("mancala solve set", str(error))
    argv = sys.argv[1:] if argv is None else argv
    command = shlex.join(["mancala", "solve", "set", *argv])
    kept = f"every position proved so far is in {args.out}; run the same command to continue"
    return run_command("mancala solve set", lambda: _build(args, start, command), kept)


def _build(args, start: GameState, command: str) -> int:
    solver = solver_for(start, args)
    solver.progress = False
    bar = tqdm(desc="solving", unit="pos", file=sys.stderr)

    def shown(done: int, total: int, line: dict) -> None:
        bar.total = total
        bar.set_postfix(ply=line["ply"], seeds=line["seeds"], s=f"{line['seconds']:.1f}")
        bar.update(1)

    try:
        solved = build(args.out, start, args.positions, args.seed, command, solver.solve, shown)
    except ValueError as error:
        return fail("mancala solve set", str(error))
    finally:
        bar.close()
    print(f"{solved} position(s) solved now; the set is {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
