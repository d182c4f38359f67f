"""The command-line convention every command of the lab follows.

* Options and names mix in any order: `mancala fit cnns1h128 --epochs 10 games.jsonl`.
* Bad input exits 2 with one line `prog: message` (after the usage line).
* Numbers are checked on the way in, and the message states the allowed range.
* One name for one thing in every command: `--models DIR` (a weights folder),
  `--eval-games N`, `--out PATH`, `--json`; an old spelling stays readable, hidden
  (`add_alias`).
* The game options (--variant and each game's rule options) are declared once, from the
  registry of games (`mancala.games.options`), by `mancala.commands.options`: the
  commands' shared options, where argparse stays (no library below the commands sees it).

>>> parser = command_parser("demo")
>>> _ = parser.add_argument("names", nargs="*")
>>> _ = parser.add_argument("--games", type=int_in(1, 10))
>>> args = parser.parse_args(["a", "--games", "3", "b"])
>>> args.names, args.games
(['a', 'b'], 3)
>>> int_in(1, 10)("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be 1..10, not 0
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser that takes options and positionals in any order and fails with
    `prog: message` and exit code 2."""

    def parse_args(self, args: Any = None, namespace: Any = None) -> argparse.Namespace:  # type: ignore[override]
        return self.parse_intermixed_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: {message}\n")

    def require_files(self, paths: list[Any]) -> None:
        """Fail naming every one of `paths` that is not a file."""
        missing = [str(path) for path in paths if not Path(path).is_file()]
        if missing:
            self.error(f"no such file: {', '.join(missing)}")


def command_parser(prog: str, doc: str | None = None) -> CommandParser:
    """The parser of command `prog`; its description is the first line of `doc`."""
    description = doc.strip().split("\n")[0] if doc else None
    return CommandParser(prog=prog, description=description)


def add_alias(parser: argparse.ArgumentParser, spelling: str, dest: str, **kwargs: Any) -> None:
    """An old `spelling` of the option stored in `dest`: still read, not shown in --help.
    `kwargs` (type, action...) as the option itself takes them."""
    parser.add_argument(
        spelling, dest=dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kwargs
    )


def fail(prog: str, message: str) -> int:
    """Say `prog: message` on stderr; the exit code of bad input (2)."""
    print(f"{prog}: {message}", file=sys.stderr)
    return 2


def _in_range(kind: Callable[[str], Any], noun: str, lo: Any, hi: Any) -> Callable[[str], Any]:
    span = f"{lo}..{hi}" if hi is not None else f">= {lo}"

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {noun} {span}, not {text!r}") from None
        if not (lo <= value and (hi is None or value <= hi)):  # NaN fails too
            raise argparse.ArgumentTypeError(f"must be {span}, not {text}")
        return value

    parse.__name__ = f"{noun} {span}"  # argparse names the type in some messages
    return parse


def int_in(lo: int, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number in lo..hi (no upper bound when hi is None)."""
    return _in_range(int, "a whole number", lo, hi)


def float_in(lo: float, hi: float | None = None) -> Callable[[str], float]:
    """An argparse type: a number in lo..hi (no upper bound when hi is None)."""
    return _in_range(float, "a number", lo, hi)


def layer_sizes(text: str) -> tuple[int, ...]:
    """An argparse type: comma-separated layer sizes, each 1..4096 ("128,256")."""
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be sizes such as 128,256, not {text!r}") from None
    if not all(1 <= size <= 4096 for size in sizes):
        raise argparse.ArgumentTypeError(f"each size must be 1..4096, not {text}")
    return sizes
