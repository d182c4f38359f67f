"""Atomic file writes: write a temp file in the target's folder, then rename it over the
target, so a reader (or a crash, or Ctrl+C) never sees a half-written file.

>>> import tempfile
>>> kept = tempfile.TemporaryDirectory()
>>> folder = Path(kept.name)
>>> with atomic_path(folder / "a.json") as temp:
...     _ = temp.write_text("{}")
>>> (folder / "a.json").read_text(), sorted(p.name for p in folder.iterdir())
('{}', ['a.json'])
>>> write_json(folder / "b.json", {"a": [1, 2]}, indent=None)
>>> (folder / "b.json").read_text().splitlines()
['{"a":[1,2]}']
>>> kept.cleanup()
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """A temp path beside `path` to write to; renamed onto `path` (readable by everyone)
    when the block ends without error, removed when it raises."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=suffix, dir=path.parent)
    os.close(fd)
    try:
        yield Path(temp)
        os.chmod(temp, 0o644)  # mkstemp makes it private; these files are for everyone
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.remove(temp)


def write_json(path: str | os.PathLike, data: Any, indent: int | None = 1) -> None:
    """Write `data` to `path` as JSON (UTF-8, a final newline) atomically; `indent` None
    writes it compact, with no spaces."""
    separators = (",", ":") if indent is None else None
    text = json.dumps(data, indent=indent, separators=separators) + "\n"
    with atomic_path(path, ".json") as temp:
        temp.write_text(text, encoding="utf-8")
