"""Recorded games: one JSON object a line in training/*.jsonl (the jsonlines library).

Writing appends whole lines with one write each (a line never interleaves with
another, and Ctrl+C or SIGTERM during the write is held until the line is down); when
the disk is full the file is cut back to its last whole line and the error raised. A file whose last
line was cut short (a crash mid-write) is first ended with a newline, so the cut line
stays alone and is skipped on reading instead of spoiling the next game.

Reading skips any line that is not a valid game record and counts it; one warning per
file says how many were skipped. It never stops on bad data. A file may be compressed
(`.jsonl.xz`, as the lab's shipped records are) and may begin with a header line
(`{"kind": "header", ...}`, saying what made it), which reading passes over.
"""

from __future__ import annotations

import errno
import io
import logging
import lzma
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import jsonlines

from mancala.core.paths import TRAINING_DIR
from mancala.core.stopping import signals_held
from mancala.game_state import GameState
from mancala.games import DEFAULT_GAME, new_game
from mancala.games.replay import positions

FORMAT = 1
log = logging.getLogger(__name__)


POSITION_KEYS = ("visits", "policy", "q", "values", "exact", "label_ms")  # one a position


def opened(record: dict[str, Any], opening: Sequence[int]) -> dict[str, Any]:
    """`record`, of a game played from the position after the moves `opening`, as a game
    from the start: the opening's moves first (counted by "opening"), and a null for each
    of their positions in the rows a record keeps a position (POSITION_KEYS), which no
    search made.

    >>> opened({"moves": [3], "visits": [[1, 2]], "players": ["a", "b"]}, [0, 1])
    {'moves': [0, 1, 3], 'visits': [None, None, [1, 2]], 'players': ['a', 'b'], 'opening': 2}
    """
    none = [None] * len(opening)
    rows = {key: none + record[key] for key in POSITION_KEYS if isinstance(record.get(key), list)}
    return {**record, "moves": [*opening, *record["moves"]], **rows, "opening": len(opening)}


def kept_seeds(path: Path) -> set[int]:
    """The seeds of the games the records file `path` holds (none when there is no file):
    the games a job that keeps each game as it ends has played already."""
    return (
        {record["seed"] for record in GameLog([path], validate=False)} if path.is_file() else set()
    )


def append_games(path: str | os.PathLike, records: Iterable[dict[str, Any]]) -> int:
    """Append `records` (dicts) to the JSONL file `path`, one line each; how many."""
    buffer = io.BytesIO()
    count = 0
    with jsonlines.Writer(buffer, compact=True) as writer:
        for record in records:
            writer.write(record)
            count += 1
    data = buffer.getvalue()
    if not data:
        return 0
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with signals_held():
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # end the line a crash cut short
            _write_whole(fd, data, size)
        finally:
            os.close(fd)
    return count


def _write_whole(fd: int, data: bytes, size: int) -> None:
    """Write all of `data` and sync it, or cut the file back to `size` and raise OSError
    (a full disk, a file-size limit): never a part of a line."""
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            if not written:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            view = view[written:]
        os.fsync(fd)
    except OSError:
        os.ftruncate(fd, size)
        raise


def check_record(obj: Any) -> dict[str, Any]:
    """`obj` if it is a game record that replays through the rules; ValueError if not."""
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    if obj.get("format") != FORMAT:
        raise ValueError(f"unknown format {obj.get('format')!r}")
    moves = obj.get("moves")
    if not isinstance(moves, list):
        raise ValueError("no list of moves")
    replay(obj)  # raises ValueError (IllegalMove) when the moves do not fit the rules
    return obj


def start_state(record: dict[str, Any]) -> GameState:
    """The position a record's game started from: the opening of its game (`variant`,
    Kalah when absent) with its `options`; ValueError for an unknown game or options."""
    options = record.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError("options must be a JSON object")
    return new_game(record.get("variant", DEFAULT_GAME), **options)


def replay(record: dict[str, Any]) -> list[GameState]:
    """Every position of a recorded game of any game, from the opening to the end,
    through the game protocol (`new_game`, `play`)."""
    return positions(start_state(record), record["moves"])


RECORD_FILES = ("*.jsonl", "*.jsonl.xz")  # game record files, plain or compressed


def record_files(folder: Path) -> list[Path]:
    """The game record files in `folder` (RECORD_FILES), sorted."""
    return sorted(path for pattern in RECORD_FILES for path in folder.glob(pattern))


def _is_header(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == "header"


class GameLog:
    """The valid game records of `paths` (default: the record files of training/), streamed.

    Iterate over it for the records. Bad lines (truncated, not JSON, not a game, moves
    that do not replay) are skipped; a warning per file counts them, and `skipped`
    holds the total of the last pass.
    """

    def __init__(self, paths: Iterable[str | os.PathLike] | None = None, validate: bool = True):
        self.paths = [Path(p) for p in paths] if paths is not None else None
        self.validate = validate
        self.skipped = 0

    def files(self) -> list[Path]:
        return self.paths if self.paths is not None else record_files(TRAINING_DIR)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        self.skipped = 0
        for path in self.files():
            skipped = 0
            opened = lzma.open(path, "rb") if path.suffix == ".xz" else open(path, "rb")
            with opened as handle, jsonlines.Reader(handle) as reader:
                while True:
                    try:
                        obj = reader.read()
                    except EOFError:
                        break
                    except jsonlines.InvalidLineError:
                        skipped += 1
                        continue
                    except lzma.LZMAError:  # a damaged compressed file: the rest unreadable
                        skipped += 1
                        break
                    if _is_header(obj):
                        continue
                    try:
                        record = check_record(obj) if self.validate else obj
                    except ValueError:
                        skipped += 1
                        continue
                    yield record
            if skipped:
                log.warning("%s: skipped %d corrupt or invalid line(s)", path, skipped)
            self.skipped += skipped
