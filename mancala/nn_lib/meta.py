"""What trained a weights file: a small JSON file beside it, `NAME.meta.json`.

The code that saves weights writes it in the same step (atomically, as the weights), so
the description of a network (`describe_training`) is read from the file and cannot
drift from what was done. Its keys:

    teacher   the player whose move values the network learnt ("minimax:8", ...)
    data      on what: the recorded files, games and positions, in words
    date      when the weights were saved (YYYY-MM-DD)
    command   the command line that saved them
    encoding  the version of the network's input encoding (its class's ENCODING): weights
              of another version read other inputs, and are refused (a file without the
              key is of version 1, written before versions were kept)
    value_scale  (policy-value networks of the sowing games) seeds: the value head
              predicts tanh(final margin / value_scale); a file without it learnt 2.0
    rules     (policy-value networks) the board they were trained for: {"variant":
              "kalah", "houses": 6, "seeds": 5, ...}; a file without it is of its game's
              default board

A key may say "recorded before metadata was kept" where the fact was not written down.

>>> import tempfile
>>> folder = tempfile.TemporaryDirectory()
>>> weights = Path(folder.name) / "nn1h128.keras"
>>> meta_path(weights).name
'nn1h128.meta.json'
>>> read_meta(weights) is None
True
>>> _ = write_meta(weights, teacher="minimax:8", data="3 games", command="x", date="2026-11-22")
>>> describe_training(read_meta(weights))
'learnt the choices of minimax:8 from 3 games (2026-11-22)'
>>> folder.cleanup()
"""

from __future__ import annotations

import datetime
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from mancala.core.atomic import write_json

UNKNOWN = "recorded before metadata was kept"
KEYS = ("teacher", "data", "date", "command")


def meta_path(weights: str | os.PathLike) -> Path:
    """The metadata file of the weights file `weights`: NAME.keras -> NAME.meta.json."""
    weights = Path(weights)
    return weights.with_name(weights.stem + ".meta.json")


def current_command() -> str:
    """The command line of this process, as a person would type it: `mancala VERB ...` for
    the lab's command line (its console script or `python -m mancala`)."""
    program = Path(sys.argv[0])
    if program.name == "mancala" or program.parts[-2:] == ("mancala", "__main__.py"):
        return shlex.join(["mancala", *sys.argv[1:]])
    return shlex.join(["python", *sys.argv])


def write_meta(
    weights: str | os.PathLike,
    *,
    teacher: str,
    data: str,
    command: str | None = None,
    date: str | None = None,
    encoding: int = 1,
    **numbers: Any,
) -> Path:
    """Write the metadata of `weights` (date: today, command: this process's), with
    `numbers` (such as value_scale, or the board's rules) as further keys; its path."""
    meta = {
        "teacher": teacher,
        "data": data,
        "date": date or datetime.date.today().isoformat(),
        "command": command or current_command(),
        "encoding": encoding,
        **numbers,
    }
    path = meta_path(weights)
    write_json(path, meta)
    return path


def read_meta(weights: str | os.PathLike) -> dict[str, str] | None:
    """The metadata of `weights`, or None when there is no file or it is not a JSON
    object; a missing key reads as UNKNOWN."""
    try:
        data = json.loads(meta_path(weights).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    return {key: str(data.get(key) or UNKNOWN) for key in KEYS}


def read_encoding(weights: str | os.PathLike) -> int:
    """The input encoding's version that `weights` were saved with (1 when not recorded).

    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> weights = Path(folder.name) / "x.keras"
    >>> before = read_encoding(weights)
    >>> _ = write_meta(weights, teacher="t", data="d", encoding=3)
    >>> before, read_encoding(weights)
    (1, 3)
    >>> folder.cleanup()
    """
    found = read_number(weights, "encoding", 1)
    return found if isinstance(found, int) else 0


def read_number(weights: str | os.PathLike, key: str, default: float) -> float | None:
    """The number `key` of the metadata of `weights`: `default` when the file or the key
    is missing, None when the key holds something else than a number.

    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> weights = Path(folder.name) / "x.keras"
    >>> _ = write_meta(weights, teacher="t", data="d", value_scale=16.0)
    >>> read_number(weights, "value_scale", 2.0), read_number(weights, "other", 2.0)
    (16.0, 2.0)
    >>> folder.cleanup()
    """
    found = read_value(weights, key, default)
    return found if isinstance(found, (int, float)) and not isinstance(found, bool) else None


def read_value(weights: str | os.PathLike, key: str, default: Any = None) -> Any:
    """The value of `key` in the metadata of `weights`, as JSON read it; `default` when
    the file or the key is missing."""
    try:
        data = json.loads(meta_path(weights).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default
    return data.get(key, default) if isinstance(data, dict) else default


def describe_training(meta: dict[str, str] | None) -> str:
    """'learnt the choices of TEACHER from DATA (DATE)', or that nothing was recorded."""
    if meta is None:
        return f"training {UNKNOWN}"
    return f"learnt the choices of {meta['teacher']} from {meta['data']} ({meta['date']})"


def describe_data(files: Any, games: int, positions: int) -> str:
    """'951,064 positions of 28,694 games in a.jsonl, b.jsonl' (files: paths or None)."""
    names = ", ".join(Path(f).name for f in files) if files else "training/*.jsonl"
    return f"{positions:,} positions of {games:,} games in {names}"
