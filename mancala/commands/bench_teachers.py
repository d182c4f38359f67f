"""How good and how fast the Kalah training teachers are, on the whole-game set.

    mancala bench teachers                         # today's teacher and deeper ones
    mancala bench teachers 10:20000 14:20000 --positions 100 --json
    mancala bench teachers 14:20000 --networks nnxa2h512   # a student beside it

A teacher is DEPTH:NODES: the solver's exact values where it proves them within NODES
nodes, alpha-beta to DEPTH plies elsewhere (`mancala.learn.teacher.Teacher`; the main job's
default is 10:20000). Each teacher values every legal move of each position of the
whole-game set of Kalah(6,4) (mancala/data/, positions from every stage of real games,
solved exactly) on its own, and its best move is scored as `mancala measure perfect` scores a
player: the share that keeps the position's value and the seeds lost a move, overall and
in each third of the game (the set is in game order). A network taught by a teacher learns
its values, so the teacher's own figures are about as far as its students can go. Beside
them: the share of positions the solver valued exactly, and positions valued a second of
CPU time (one core). `--networks` scores zoo networks (their shipped Kalah weights, each
alone, without search) the same way, to see in which third a student falls short.
"""

from __future__ import annotations

import argparse
import sys
import time

from mancala.core.cli import command_parser, int_in
from mancala.core.report import Table, show
from mancala.core.stopping import run_command

TEACHERS = ("10:20000", "12:20000", "14:20000", "12:2000000")
STAGES = ("opening", "middle", "end")  # the thirds of the set, in game order


def teacher_spec(text: str) -> tuple[int, int]:
    """'DEPTH:NODES' -> (depth 1..20, nodes >= 0); ValueError otherwise."""
    depth, _, nodes = text.partition(":")
    try:
        pair = int(depth), int(nodes or 0)
    except ValueError:
        raise ValueError(f"a teacher is DEPTH:NODES such as 10:20000, not {text!r}") from None
    if not 1 <= pair[0] <= 20 or pair[1] < 0:
        raise ValueError(f"a teacher's depth is 1..20 and its nodes >= 0, not {text!r}")
    return pair


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala bench teachers", __doc__)
    parser.add_argument("teachers", nargs="*", help="DEPTH:NODES (" + " ".join(TEACHERS) + ")")
    parser.add_argument(
        "--positions", type=int_in(3), help="every k-th position, about this many (all)"
    )
    parser.add_argument(
        "--networks", nargs="+", default=[], metavar="NAME", help="zoo networks scored beside"
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    try:
        teachers = [teacher_spec(text) for text in args.teachers or TEACHERS]
    except ValueError as error:
        parser.error(str(error))
    return run_command("mancala bench teachers", lambda: _bench(teachers, args), "nothing was kept")


def _bench(teachers: list[tuple[int, int]], args: argparse.Namespace) -> int:
    from mancala.ai.solver import shared_solver
    from mancala.arena.solved_set import load
    from mancala.game_state import GameState
    from mancala.nn_lib.zoo import network

    nets = [network(name).load() for name in args.networks]  # a bad name stops it first
    positions = load()[1]
    if args.positions:
        positions = positions[:: max(1, len(positions) // args.positions)]
    shared_solver(GameState.new())  # the endgame database: loaded (or built) before timing
    title = (
        f"Kalah(6,4): the teachers' best moves on {len(positions)} positions of the whole-game set"
    )
    table = Table(
        ["teacher or network", "keeps value %", "seeds lost / move"]
        + [f"keeps value %, {stage}" for stage in STAGES]
        + ["exact %", "positions / s"],
        title=title,
    )
    for depth, nodes in teachers:
        name = f"minimax:{depth}" + (f"+solver:n={nodes}" if nodes else "")
        print(f"bench_teachers: {name} ...", file=sys.stderr, flush=True)
        table.add(*measure(depth, nodes, positions))
    for net in nets:
        table.add(*measure_network(net, positions))
    show([table], args.json)
    return 0


def measure(depth: int, nodes: int, positions: list) -> list:
    """The row of one teacher (see the module's doc)."""
    from mancala.arena.solved_set import move_losses
    from mancala.learn.teacher import Teacher

    teacher = Teacher(depth, exact_nodes=nodes, chain=False)

    def best_moves(states: list) -> list[int]:
        return [
            max((v, m) for m, v in enumerate(teacher.move_values(state)) if v is not None)[1]
            for state in states
        ]

    began = time.process_time()
    losses = move_losses(best_moves, positions)
    took = time.process_time() - began
    exact = round(100 * teacher.exact / len(positions))
    return row(teacher.name, losses, exact, len(positions) / took)


def measure_network(net, positions: list) -> list:
    """The row of one zoo network playing alone (no exact values: "exact %" is empty)."""
    from mancala.ai.network import NetworkPlayer
    from mancala.arena.solved_set import move_losses

    choose = NetworkPlayer(net=net).choose_moves
    began = time.process_time()
    losses = move_losses(choose, positions)
    took = time.process_time() - began
    return row(net.name, losses, "", len(positions) / took)


def row(name: str, losses: list[int], exact: int | str, rate: float) -> list:
    """A table row: the share of value kept, overall and by third, and the seeds lost."""
    import numpy as np

    losses = np.array(losses)
    thirds = np.array_split(losses, len(STAGES))
    return [
        name,
        round(100 * float(np.mean(losses == 0)), 1),
        round(float(losses.mean()), 2),
        *(round(100 * float(np.mean(third == 0)), 1) for third in thirds),
        exact,
        round(rate, 1),
    ]


if __name__ == "__main__":
    sys.exit(main())
