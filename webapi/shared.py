"""State that the gunicorn workers of one server share: one SQLite file.

The master makes a folder for it before it starts the workers (webapi.gunicorn_config)
and names it in $MANCALA_API_SHARED; an app made outside gunicorn (tests, a script) gets
a folder of its own. Two things live in the file: the per-client rate counters of the
`limits` library (the one under Flask-Limiter), through `SQLiteStorage` (its storage
interface, registered for "sqlite://" URIs: its own storages need a Redis, Memcached or
MongoDB server, which the image does not run), and the searches running now
(webapi.admission).

SQLite in WAL mode serialises the writers of every process on the file's lock; nothing
in it needs to outlive the server, so it is not synced to disk.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from limits.storage import Storage

FILE_NAME = "api-state.sqlite3"
_connections = threading.local()


def state_file(folder: str | os.PathLike) -> Path:
    """The shared SQLite file in `folder`."""
    return Path(folder) / FILE_NAME


def connect(path: str | os.PathLike) -> sqlite3.Connection:
    """This thread's connection to the SQLite file `path` (autocommit; WAL; not synced)."""
    cache = _connections.__dict__.setdefault("by_path", {})
    key = str(path)
    if key not in cache:
        connection = sqlite3.connect(key, timeout=30, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=OFF")
        cache[key] = connection
    return cache[key]


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction on `db` (taking the file's lock at once), rolled back if the
    block raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


class SQLiteStorage(Storage):
    """Fixed-window counters for `limits` in a SQLite file, shared
    by every process that opens it: `storage_uri="sqlite:///path/to/file"`."""

    STORAGE_SCHEME = ["sqlite"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        if not uri or not uri.startswith("sqlite:///"):
            raise ValueError(f"a SQLite storage URI is sqlite:///ABSOLUTE/PATH, not {uri!r}")
        self.path = uri[len("sqlite://") :]
        self._db().execute(
            "CREATE TABLE IF NOT EXISTS counters "
            "(key TEXT PRIMARY KEY, value INTEGER NOT NULL, expires REAL NOT NULL)"
        )

    def _db(self) -> sqlite3.Connection:
        return connect(self.path)

    @property
    def base_exceptions(self) -> type[Exception]:
        return sqlite3.Error

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        now = time.time()
        db = self._db()
        with transaction(db):
            db.execute("DELETE FROM counters WHERE key = ? AND expires <= ?", (key, now))
            (value,) = db.execute(
                "INSERT INTO counters VALUES (?, ?, ?) ON CONFLICT(key) "
                "DO UPDATE SET value = value + excluded.value RETURNING value",
                (key, amount, now + expiry),
            ).fetchone()
        return value

    def get(self, key: str) -> int:
        row = (
            self._db()
            .execute("SELECT value FROM counters WHERE key = ? AND expires > ?", (key, time.time()))
            .fetchone()
        )
        return row[0] if row else 0

    def get_expiry(self, key: str) -> float:
        now = time.time()
        row = (
            self._db()
            .execute("SELECT expires FROM counters WHERE key = ? AND expires > ?", (key, now))
            .fetchone()
        )
        return row[0] if row else now

    def check(self) -> bool:
        self._db().execute("SELECT 1").fetchone()
        return True

    def reset(self) -> int | None:
        return self._db().execute("DELETE FROM counters").rowcount

    def clear(self, key: str) -> None:
        self._db().execute("DELETE FROM counters WHERE key = ?", (key,))
