"""Every command line that README.md and docs/ show parses as written.

A command line is `python mancala/NAME.py ...`, `python -m mancala.NAME ...` or the same
after `./deploy/dev.sh`, in a code block or between backticks. Each is handed to its
module's `main`, whose parser runs and is then stopped: the test checks the options and
arguments, not the work. Placeholders of the docs' usage lines stand for sample values.
"""

from __future__ import annotations

import argparse
import importlib
import re
import shlex
from pathlib import Path

import pytest

from mancala.core.cli import CommandParser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMAND = re.compile(
    r"(?:python3?|\./deploy/dev\.sh)\s+(?:-m\s+(mancala(?:\.[a-z_]+)+)|mancala/([a-z_]+)\.py)"
    r"((?:[ \t]+[^\s`|;&<>]+)*)"
)
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
}
PATTERNS = {"mancala.x"}  # "python -m mancala.x": the form of every command, not one


def command_lines() -> list[tuple[str, str, list[str]]]:
    """(where, module, argv) of every command line of the docs."""
    found = []
    for page in PAGES:
        for number, chunk in _code(page.read_text(encoding="utf-8")):
            chunk = re.sub(r"\s#.*$", "", chunk)  # a comment after the command
            for match in COMMAND.finditer(chunk):
                module = match[1] or f"mancala.{match[2]}"
                if module not in PATTERNS:
                    found.append((f"{page.name}:{number}", module, _sample_argv(match[3])))
    return found


def _code(text: str) -> list[tuple[int, str]]:
    """(line number, text) of the code of a markdown page: each line of a code block,
    each span between backticks (joined when it wraps over lines)."""
    out, fenced = [], False
    lines = text.splitlines()
    prose: list[tuple[int, str]] = []
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced or line.startswith("    "):
            out.append((number, line.replace("\\", " ")))
        else:
            prose.append((number, line))
    joined = "\n".join(line for _, line in prose)
    for span in re.finditer(r"`([^`]+)`", joined):
        number = prose[joined.count("\n", 0, span.start())][0]
        out.append((number, span[1].replace("\n", " ")))
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
    assert len({module for _, module, _ in LINES}) > 20


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
