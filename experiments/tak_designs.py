"""The measurement behind the Tak networks' design: the same zoo network trained on the
same annotated Tak games in several ways, each then played against greedy.

- "afterstates" (the zoo's): the network values the position after a move, for the
  mover, and plays one ply: every legal move tried (`mancala.nn_lib.views.TakView`); it
  learns a position's moves together, their values and the teacher's choice among them.
- "afterstates, values alone": the same learning each move's value alone (squared error).
- "afterstates, planes alone": the same without the feature planes
  (`mancala.games.tak.features`).
- "action ids": the network reads the position and gives one number an action id (3,175
  on 5x5), illegal ones masked; it learns the teacher's soft choice as the sowing
  networks do, and plays the argmax over the legal ids.

    python experiments/tak_designs.py runs/tak1/games.jsonl --network nn2h80 --openings 50
    python experiments/tak_designs.py runs/tak3/games.jsonl --designs zoo

Each learns from the first --games annotated Tak games of the files, --epochs passes,
and plays greedy from --openings random 2-ply 5x5 openings, each in both seats;
--designs picks some of them (zoo, values, planes, ids).
"""

from __future__ import annotations

import random
import sys
import time
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from mancala.core.cli import command_parser, fail, int_in
from mancala.core.report import Table, show


def action_examples(records: list[dict[str, Any]], actions: int) -> tuple[np.ndarray, ...]:
    """(planes of each position from the mover's side, the teacher's value of every action
    id, the legal ids) of annotated Tak records."""
    from mancala.arena.records import replay
    from mancala.games.tak.planes import planes

    inputs, gains, masks = [], [], []
    for record in records:
        for state, row in zip(replay(record)[:-1], record["values"]):
            moves = state.legal_moves()
            gain, mask = np.zeros(actions, np.float32), np.zeros(actions, bool)
            gain[moves], mask[moves] = row, True
            inputs.append(planes(state, state.player))
            gains.append(gain)
            masks.append(mask)
    return np.stack(inputs), np.stack(gains), np.stack(masks)


def afterstate_examples(records: list[dict[str, Any]]) -> tuple[np.ndarray, ...]:
    """The zoo's Tak examples of the records (`mancala.learn.data.record_positions`)."""
    from mancala.games.examples import Examples
    from mancala.learn.data import record_positions

    return Examples.joined([part for part in map(record_positions, records) if part is not None])


def values_alone(examples: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """The zoo's examples one move a row, for a network learning each value alone."""
    x, gains, mask = examples
    return x[mask], gains[mask][:, None], np.ones((int(mask.sum()), 1), bool)


def action_id_network(name: str, path: Path) -> Any:
    """Zoo network `name` for Tak, reading positions and giving a value an action id."""
    from mancala.games.tak.planes import planes
    from mancala.nn_lib.views import TakView
    from mancala.nn_lib.zoo import network

    class ActionIds(TakView):
        objective = "policy"

        def __init__(self, options: dict[str, Any]) -> None:
            super().__init__(options)
            self.outputs = self.actions

        def unscale(self, outputs: np.ndarray) -> np.ndarray:
            return outputs

        def move_values(self, predict, states):
            from mancala.games.masks import legal_mask

            return predict(np.stack([planes(s, s.player) for s in states])), legal_mask(states)

    net = network(name, path, "tak")
    net.view, net.objective = ActionIds(net.options), "policy"
    return net


def planes_alone_network(name: str, path: Path) -> Any:
    """Zoo network `name` for Tak, valuing positions after a move from the planes alone,
    without the feature planes (`mancala.games.tak.features`)."""
    from functools import partial

    from mancala.nn_lib.views import TakView, each_position
    from mancala.nn_lib.zoo import network

    class PlanesAlone(TakView):
        def encoder(self, net: Any) -> Any:
            return partial(each_position, net.encode_planes)

    net = network(name, path, "tak")
    net.view = PlanesAlone(net.options)
    net.encode = net.view.encoder(net)
    return net


def measure(net: Any, examples: tuple, epochs: int, openings: int) -> list[Any]:
    """Train `net` from fresh weights on `examples`; (moves learnt, training s, win %
    against greedy, ms a move)."""
    from mancala.ai.network import NetworkPlayer
    from mancala.ai.registry import make_player
    from mancala.arena.match import play_games, ply_limit
    from mancala.arena.openings import random_openings
    from mancala.arena.results import Tally
    from mancala.games import new_game

    net.fresh(seed=1)
    began = time.perf_counter()
    net.fit(*examples, epochs=epochs, batch_size=512)
    trained = time.perf_counter() - began
    player, greedy = NetworkPlayer(net=net), make_player("greedy", seed=1)
    start = new_game("tak", size=5, komi=0)
    starts, moves = random_openings(start, openings, random.Random(0), 2)
    tally, began, plies = Tally(), time.perf_counter(), 0
    for seat in (0, 1):
        seated = [player, greedy] if seat == 0 else [greedy, player]
        records = play_games(seated, starts, openings=moves, max_plies=ply_limit(start))
        tally.add_records(records, seat)
        plies += sum(len(r["moves"]) - 2 for r in records)
    played = time.perf_counter() - began
    learnt = int(examples[2].sum()) if net.objective == "ranked" else len(examples[0])
    return [learnt, round(trained), tally.win_percent(), round(1e3 * played / plies, 2)]


def main(argv: list[str] | None = None) -> int:
    from mancala.arena.records import GameLog
    from mancala.games.tak.actions import num_actions
    from mancala.nn_lib.zoo import network, networks_for

    parser = command_parser("tak_designs", __doc__)
    parser.add_argument("files", nargs="+", type=Path, help="annotated Tak games (JSONL)")
    parser.add_argument("--network", default="nn2h80", help="a zoo network that plays Tak")
    parser.add_argument("--games", type=int_in(1), default=1000, help="games to learn from")
    parser.add_argument("--epochs", type=int_in(1), default=4)
    parser.add_argument("--openings", type=int_in(1), default=50, help="x2 seats vs greedy")
    parser.add_argument(
        "--designs", default="zoo,values,planes,ids", help="the designs measured (as the default)"
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    designs = args.designs.split(",")
    if unknown := set(designs) - {"zoo", "values", "planes", "ids"}:
        return fail("tak_designs", f"no design {sorted(unknown)[0]!r}: zoo, values, planes or ids")
    if args.network not in networks_for("tak"):
        return fail("tak_designs", f"{args.network!r} is no zoo network that plays Tak")
    annotated = (r for r in GameLog(args.files) if r.get("variant") == "tak" and r.get("values"))
    records = list(islice(annotated, args.games))  # the files' other games never held at once
    if not records:
        return fail("tak_designs", "no annotated Tak games in " + ", ".join(map(str, args.files)))
    scratch = Path(__import__("tempfile").mkdtemp())
    table = Table(["design", "moves learnt", "training (s)", "won vs greedy %", "ms a move"])
    table.title = (
        f"{args.network}, {len(records)} games ({records[0].get('teacher')}), "
        f"{args.epochs} epochs, {args.openings} openings x 2 seats"
    )
    examples = afterstate_examples(records) if {"zoo", "values", "planes"} & set(designs) else ()
    if "zoo" in designs:
        after = network(args.network, scratch / "a.keras", "tak")
        table.add("afterstates", *measure(after, examples, args.epochs, args.openings))
    if "values" in designs:
        alone = network(args.network, scratch / "v.keras", "tak")
        alone.objective = "values"
        row = measure(alone, values_alone(examples), args.epochs, args.openings)
        table.add("afterstates, values alone", *row)
    if "planes" in designs:
        alone = planes_alone_network(args.network, scratch / "p.keras")
        row = measure(alone, examples, args.epochs, args.openings)
        table.add("afterstates, planes alone", *row)
    if "ids" in designs:
        ids = action_id_network(args.network, scratch / "b.keras")
        examples = action_examples(records, num_actions(5))
        table.add("action ids", *measure(ids, examples, args.epochs, args.openings))
    show([table], args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
