"""Atomic file writes: write a temp file in the target's folder, then rename it over the
target, so a reader (or a crash, or Ctrl+C) never sees a half-written file.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> with atomic_path(folder / "a.json") as temp:
...     _ = temp.write_text("{}")
>>> (folder / "a.json").read_text(), sorted(p.name for p in folder.iterdir())
('{}', ['a.json'])
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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
