"""Two Kalah(6,4) policy-value files compared on the held-out set, paired (docs/az.md,
"A score utility beside the win value").

    python experiments/kalah_az_paired.py mancala/models/kalah/az-net.keras \
        runs/fit/kalah/az-net.keras --simulations 1000

For each file, az-net (the policy head alone) and az-solo:N (its search without the
solver's help): the share of the held-out positions where the move keeps the exact
value and the seeds lost a move, then the second file's difference from the first on the
same positions, with its standard error.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mancala.ai.az import AZ, AZNet
from mancala.arena.solved_set import HELD_OUT, load, move_quality, paired, set_file
from mancala.core.report import Table
from mancala.game_state import GameState
from mancala.nn_lib.policy_value import PolicyValue


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old", type=Path, help="the first weights (the shipped ones, say)")
    parser.add_argument("new", type=Path, help="the weights compared with them")
    parser.add_argument("--simulations", type=int, default=1000)
    args = parser.parse_args(argv)
    _, held = load(set_file(GameState.new(), HELD_OUT))
    nets = [PolicyValue("kalah", path).load() for path in (args.old, args.new)]
    n = args.simulations
    players = {
        "az-net": lambda net: AZNet(net=net),
        f"az-solo:{n}": lambda net: AZ(0, simulations=n, net=net, endgame=False, prove=False),
    }
    table = Table(["player", "first keeps %", "second keeps %", "difference", "seeds lost"])
    for name, make in players.items():
        old, new = (move_quality(make(net).choose_moves, held) for net in nets)
        diff = paired(new["losses"], old["losses"])
        table.add(
            name,
            f"{100 * old['kept']:.1f}",
            f"{100 * new['kept']:.1f}",
            f"{100 * diff['kept']:+.1f} ± {100 * diff['kept_se']:.1f}",
            f"{old['seeds_lost']:.3f} -> {new['seeds_lost']:.3f}",
        )
    print(table.markdown())


if __name__ == "__main__":
    main()
