"""The lab's command line: `mancala VERB [SECTION] ...`, or `python -m mancala VERB ...`.

Each job is one module of this folder with a `main(argv)`. A verb with sections takes the
section as its first word (`mancala bench workers`); its plain form runs the first line of
its table, where it has one (`mancala bench`). The modules are imported only when their
verb runs, so `mancala --help` starts at once.
"""

from __future__ import annotations

import importlib
import sys
from typing import NamedTuple


class Command(NamedTuple):
    verb: str
    section: str | None  # None: the verb alone
    module: str
    summary: str


COMMANDS = (
    Command("play", None, "mancala.commands.play", "play a game in the terminal"),
    Command("train", None, "mancala.commands.train", "the main job: play, record, refit, gate"),
    Command("fit", None, "mancala.commands.fit", "fit one network to recorded games"),
    Command("fit", "evaluation", "mancala.commands.fit_evaluation", "Tak's alpha-beta evaluation"),
    Command("fit", "guide", "mancala.commands.fit_guide", "the policy of az's Tak guide"),
    Command(
        "selfplay", None, "mancala.commands.selfplay", "az self-play, generation by generation"
    ),
    Command(
        "adversary",
        None,
        "mancala.commands.adversary",
        "two networks practise: the main job with them alone",
    ),
    Command("dqn", None, "mancala.commands.dqn", "the DQN learns by playing fixed opponents"),
    Command("sarsa", None, "mancala.commands.sarsa", "tabular SARSA on Tak, as the seed learnt"),
    Command("tournament", None, "mancala.commands.tournament", "round robin: win rates, ratings"),
    Command(
        "measure", "perfect", "mancala.commands.measure_perfect", "players against perfect play"
    ),
    Command(
        "measure",
        "weights",
        "mancala.commands.measure_weights",
        "a folder's networks against fixed players",
    ),
    Command(
        "measure", "dqn", "mancala.commands.measure_dqn", "the DQN seat by seat, as its paper did"
    ),
    Command(
        "promote",
        None,
        "mancala.commands.promote",
        "hand-trained networks or DQN, through the gate",
    ),
    Command("solve", None, "mancala.commands.solve", "the exact value of a Kalah position"),
    Command("solve", "book", "mancala.commands.solve_book", "the solver's opening book"),
    Command("solve", "set", "mancala.commands.solve_set", "a set of solved positions"),
    Command("solve", "labels", "mancala.commands.solve_labels", "exact labels of many games"),
    Command("solve", "database", "mancala.commands.solve_database", "build the endgame database"),
    Command("bench", None, "mancala.commands.bench", "speed: rules, engines, search, solver"),
    Command(
        "bench", "workers", "mancala.commands.bench_workers", "games a second by number of workers"
    ),
    Command("bench", "networks", "mancala.commands.bench_networks", "the networks' forward passes"),
    Command(
        "bench", "loop", "mancala.commands.bench_loop", "the main job's games an hour, and waiting"
    ),
    Command(
        "bench",
        "teachers",
        "mancala.commands.bench_teachers",
        "the teachers' labels against perfect play",
    ),
    Command("openings", None, "mancala.commands.openings", "a fixed set of contested openings"),
    Command("serve", None, "mancala.commands.serve", "the browser game and JSON API"),
    Command("tei", None, "mancala.commands.tei", "a Tak player as a TEI engine"),
)


def usage() -> str:
    """The verbs and their sections, one a line."""
    lines = ["usage: mancala VERB [SECTION] [ARGS...]   (mancala VERB --help for its options)", ""]
    for command in COMMANDS:
        name = " ".join(filter(None, (command.verb, command.section)))
        lines.append(f"  {name:<20}{command.summary}")
    return "\n".join(lines)


def find(argv: list[str]) -> tuple[Command, list[str]]:
    """The command that `argv` names, and the arguments left for it; ValueError if none."""
    verbs = {command.verb for command in COMMANDS}
    if not argv or argv[0] not in verbs:
        said = f"unknown verb {argv[0]!r}" if argv else "a verb is needed"
        raise ValueError(f"{said}; the verbs: {', '.join(sorted(verbs))}")
    mine = [command for command in COMMANDS if command.verb == argv[0]]
    for command in mine:
        if command.section is not None and argv[1:2] == [command.section]:
            return command, argv[2:]
    if mine[0].section is None:
        return mine[0], argv[1:]
    sections = ", ".join(str(command.section) for command in mine)
    raise ValueError(f"{argv[0]} needs a section: {sections}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] in (["-h"], ["--help"]):
        print(usage())
        return 0
    try:
        command, rest = find(argv)
    except ValueError as error:
        print(usage(), file=sys.stderr)
        print(f"mancala: {error}", file=sys.stderr)
        return 2
    return importlib.import_module(command.module).main(rest)
