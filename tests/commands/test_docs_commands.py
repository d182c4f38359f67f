"""Every command line that README.md and docs/ show parses as written.

A command line is `mancala VERB ...` (bare, after `python -m` or after `./deploy/dev.sh`;
between backticks in prose, `mancala fit` alone names a command, with arguments it is a line),
`python mancala/NAME.py ...` or `python -m mancala.NAME ...` (an entry point), or an
experiment's `python experiments/NAME.py ...`, in a code block or between backticks. Each
is handed to its module's `main` (the lab's command line for a verb), whose parser runs and
is then stopped: the test checks the options and arguments, not the work. Placeholders of
the docs' usage lines stand for sample values.
"""

from __future__ import annotations

import argparse
import importlib
import re
import shlex
from pathlib import Path

import pytest

from mancala.commands import COMMANDS
from mancala.core.cli import CommandParser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
VERBS = "|".join(sorted({command.verb for command in COMMANDS}))
COMMAND = re.compile(
    r"(?:(?:python3?|\./deploy/dev\.sh)\s+"
    r"(?:-m\s+(mancala(?:\.[a-z_]+)+)|((?:mancala|experiments)/[a-z_]+)\.py)"
    rf"|(?<![\w/.-])((?:python3? -m |\./deploy/dev\.sh )?)mancala\s+({VERBS})\b)"
    r"((?:[ \t]+[^\s`|;&<>]+)*)"
)
LINE = "mancala.commands"  # the module of `mancala VERB`
PLACEHOLDERS = {  # the docs' usage words, and what stands for them here
    "N": "3",
    "K": "2",
    "NAME": "sample",
    "DIR": "runs/sample",
    "FILE": "sample.json",
    "OPPONENT": "greedy",
    "SECONDS": "1",
    "PATH": "/bin/true",
    "S": "0",
    "GAME": "kalah",
    "PAIRS": "3",
    "E": "2",
    "L": "0.001",
    "SIZE": "5",
    "...": "greedy",
}
PATTERNS = {"mancala.x"}  # "python -m mancala.x": the form of every command, not one


def command_lines() -> list[tuple[str, str, list[str]]]:
    """(where, module, argv) of every command line of the docs."""
    found = []
    for page in PAGES:
        for number, chunk, block in _code(page.read_text(encoding="utf-8")):
            chunk = re.sub(r"\s#.*$", "", chunk)  # a comment after the command
            for match in COMMAND.finditer(chunk):
                where = f"{page.name}:{number}"
                if match[4]:
                    if block or match[3] or match[5].strip():  # not a name alone
                        found.append((where, LINE, [match[4], *_sample_argv(match[5])]))
                    continue
                module = match[1] or match[2].replace("/", ".")
                if module not in PATTERNS:
                    found.append((where, module, _sample_argv(match[5])))
    return found


def _code(text: str) -> list[tuple[int, str, bool]]:
    """(line number, text, in a block) of the code of a markdown page: each line of a code
    block, each span between backticks (joined when it wraps over lines)."""
    out, fenced = [], False
    lines = text.splitlines()
    prose: list[tuple[int, str]] = []
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced or line.startswith("    "):
            out.append((number, line.replace("\\", " "), True))
        else:
            prose.append((number, line))
    joined = "\n".join(line for _, line in prose)
    for span in re.finditer(r"`([^`]+)`", joined):
        number = prose[joined.count("\n", 0, span.start())][0]
        out.append((number, span[1].replace("\n", " "), False))
    return out


def _sample_argv(text: str) -> list[str]:
    """The arguments of a usage line: optional parts ([--x 2]) taken, "[players...]"
    dropped, placeholders replaced."""
    text = re.sub(r"\[[^\]]*\.\.\.\]", "", text)
    text = text.replace("[", "").replace("]", "")
    return [PLACEHOLDERS.get(word, word) for word in shlex.split(text)]


class Parsed(Exception):
    """The command's parser accepted the line."""


def _stopping(parse):
    def parse_then_stop(self, args=None, namespace=None):
        parse(self, args, namespace)
        raise Parsed

    return parse_then_stop


LINES = command_lines()


def test_the_docs_show_command_lines():
    assert len(LINES) > 100
    jobs = {argv[0] if module == LINE else module for _, module, argv in LINES}
    assert len(jobs) >= 12 and {"train", "tournament", "measure", "solve", "bench"} <= jobs


@pytest.mark.parametrize(("where", "module", "argv"), LINES, ids=[w for w, _, _ in LINES])
def test_each_documented_command_line_parses(where, module, argv, monkeypatch, capsys):
    for parser_class in (argparse.ArgumentParser, CommandParser):
        monkeypatch.setattr(parser_class, "parse_args", _stopping(parser_class.parse_args))
    imported = importlib.import_module(module)
    if not hasattr(imported, "main"):  # a package run by `python -m`
        imported = importlib.import_module(f"{module}.__main__")
    main = imported.main
    with pytest.raises(Parsed):
        try:
            main(argv)
        except SystemExit as stop:
            pytest.fail(f"{where}: {module} {shlex.join(argv)}: {capsys.readouterr().err}")
            raise AssertionError from stop


RUN_AS_WRITTEN = [  # documented lines whose work is small: run whole, as a user would
    ["tournament", "1", "luck", "greedy"],
    ["tournament", "3", "luck", "greedy", "max", "exact"],
    ["tournament", "3", "dqn", "greedy", "--variant", "sungka"],
]


@pytest.mark.parametrize("argv", RUN_AS_WRITTEN, ids=" ".join)
def test_a_listed_subset_of_the_documented_lines_runs(argv, capsys):
    from mancala.commands import main

    assert any(module == LINE and shown == argv for _, module, shown in LINES)  # in the docs
    assert main(argv) == 0
    assert "| greedy |" in capsys.readouterr().out
