"""Serve a lab player as a Tak engine over TEI, the Tak Engine Interface, on standard
input and output, for Tak controllers (racetrack) and other engines' tools.

    mancala tei                 # the strongest: az where a guide ships, else minimax
    mancala tei minimax         # any Tak player of the lab by name, timed by each `go`
    mancala tei minimax:4       # a fixed budget: each `go`'s time is ignored

Named no player, the engine plays each board with the first of DEFAULT_PLAYERS that plays
it: az where its guide ships (`mancala/models/tak/az-guide-SIZE.json`), the alpha-beta on
the other boards. A player whose name takes seconds (minimax, az, the solver) and is named
without a parameter thinks for 80% of each move's time (`go movetime MS`, or its share of
its clock: `mancala.ai.tei.move_seconds`); another plays as named. Answers `tei`,
`isready` (at once, even while searching), `setoption name HalfKomi value N`,
`teinewgame SIZE`, `position startpos|tps ... [moves ...]`, `go ...`, `stop` (the search
ends at its own time) and `quit`; a line it cannot follow gets `info string error: ...`
and the engine goes on.
The protocol: `mancala/ai/tei.py` and docs/tak.md.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TextIO

from mancala.ai.base import Player
from mancala.ai.limits import parse_param
from mancala.ai.registry import can_play, entry_params, make_player, split_spec
from mancala.ai.tei import Session
from mancala.core.cli import command_parser, fail
from mancala.games.tak.state import TakState, new_tak

THINKING_SHARE = 0.8  # of a move's time, the search's: the rest is the protocol's margin
DEFAULT_PLAYERS = ("az", "minimax")  # the strongest first, each on the boards it plays


def player_maker(spec: str) -> Callable[[float], Player]:
    """`make(seconds)` for the player `spec`: timed by `seconds` where its name takes
    seconds and names no budget, else as named; moves of the same time get the same
    player, which keeps what it learnt (a search's table) from move to move. ValueError
    for a name that cannot play Tak."""
    if not can_play(spec, new_tak(5)):
        raise ValueError(f"{spec} does not play Tak")
    name, param = split_spec(spec)
    params = entry_params(name)
    given = parse_param(name, params, param) if param is not None else {}
    budgets = {p.kind for p in params if not p.choices}  # a choice (evaluation=hand) is none
    timed = [p for p in params if p.kind == "seconds"] if not budgets & given.keys() else []
    if not timed:
        fixed = make_player(spec, seed=0)
        return lambda seconds: fixed
    bound = timed[0]
    last: dict[str, Player] = {}  # the player of the last move's time, kept with its tables

    def make(seconds: float) -> Player:
        thinking = min(bound.high, max(bound.low, THINKING_SHARE * seconds))
        timed_spec = f"{name}:" + ",".join([f"t={thinking:.3f}", *([param] if param else [])])
        if timed_spec not in last:
            last.clear()
            last[timed_spec] = make_player(timed_spec, seed=0)
        return last[timed_spec]

    return make


class BoardPlayers:
    """`players(seconds, state)`: the first player of `specs` that plays `state`'s board, as
    `player_maker` makes it (found once a (size, komi)); ValueError for a name that cannot
    play Tak."""

    def __init__(self, specs: tuple[str, ...]) -> None:
        self.specs = specs
        self.makers = {spec: player_maker(spec) for spec in specs}
        self.chosen: dict[tuple[int, int], str] = {}  # (size, komi) -> its player

    def __call__(self, seconds: float, state: TakState) -> Player:
        board = (state.size, state.komi)
        if board not in self.chosen:
            found = (spec for spec in self.specs if can_play(spec, state))
            self.chosen[board] = next(found, self.specs[-1])
        return self.makers[self.chosen[board]](seconds)

    def warm_up(self, seconds: float = 0.01) -> dict[str, Player]:
        """Each player's first move made now, on the first of 5x5 and 6x6 it plays (its
        kernels compiled, its weights read), not in a `go`'s time: {spec: the player}."""
        warmed = {}
        for spec, maker in self.makers.items():
            start = next((s for s in (new_tak(5), new_tak(6)) if can_play(spec, s)), None)
            if start is not None:
                warmed[spec] = maker(seconds)
                warmed[spec].choose_move(start)
        return warmed


def serve(session: Session, lines: TextIO, out: TextIO) -> None:
    """Answer the protocol line by line until `quit` or the end of input; a `go` searches
    in a thread of its own, so that `isready` is answered while it thinks."""
    writing = threading.Lock()
    search: threading.Thread | None = None

    def send(answers: list[str]) -> None:
        with writing:
            for answer in answers:
                out.write(answer + "\n")
            out.flush()

    for line in lines:
        command = line.split()[:1]
        if command == ["quit"]:
            break
        if command == ["isready"]:
            send(["readyok"])
            continue
        if search is not None:
            search.join()  # nothing changes the game while its search runs
        if command == ["go"]:
            search = threading.Thread(target=lambda text=line: send(session.answer(text)))
            search.start()
        else:
            send(session.answer(line))
    if search is not None:
        search.join()


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala tei", __doc__)
    parser.add_argument(
        "player", nargs="?", help=f"a Tak player (default: {', else '.join(DEFAULT_PLAYERS)})"
    )
    args = parser.parse_args(argv)
    specs = (args.player,) if args.player else DEFAULT_PLAYERS
    try:
        players = BoardPlayers(specs)
        players.warm_up()
    except ValueError as error:
        return fail("mancala tei", str(error))
    try:
        serve(Session(" or ".join(specs), players), sys.stdin, sys.stdout)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the controller went away
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
