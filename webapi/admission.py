"""Which searches the API runs: a bounded number at once per worker, and a fair share per
client while others are searching, so that what costs nothing is never queued behind
searches and no client takes every search for itself.

A search is a move of a player whose name takes a budget (minimax, mcts, az, the solver:
`mancala.ai.registry.is_search`) or an analysis. It holds one of its worker's `slots` for
the whole request, or is refused at once with 503 and Retry-After: it never waits in a
queue. While another client has a search running (anywhere on the server), a client may
run at most `per_client` searches at once and start at most `rate` of them (a rate of
the `limits` library, such as "60 per minute", counted in fixed windows), else 429 and
Retry-After; a client alone on
the server is never refused for its own share. Players that answer at once (luck, greedy,
a network alone) and the cheap endpoints take no slot and are never refused; gunicorn
runs more threads than slots (webapi.gunicorn_config), so they always find a thread.

The searches running on every worker, and each worker's counters, are kept in the state
the workers share (webapi.shared) and shown by GET /api/load.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from limits import parse
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

from webapi.shared import connect, transaction

RETRY_AFTER = 1  # seconds a refused client is asked to wait (HTTP allows whole seconds)
STALE_SECONDS = 120  # a search row older than this is a dead worker's: no request lives so long
COUNTERS = ("running", "peak", "done", "refused_busy", "refused_client")


@dataclass(frozen=True)
class Policy:
    """How many searches run at once per worker, per client, and a client's rate."""

    slots: int = 5
    per_client: int = 2
    rate: str = "60 per minute"

    def __post_init__(self) -> None:
        if self.slots < 1 or self.per_client < 1:
            raise ValueError(f"slots and per_client must be at least 1: {self}")


class Admission:
    """The searches of one worker: its slots, and the state shared with the others."""

    def __init__(self, policy: Policy, state_file: Path) -> None:
        self.policy, self.state_file = policy, state_file
        self.rate = parse(policy.rate)
        self.limiter = FixedWindowRateLimiter(storage_from_string(f"sqlite://{state_file}"))
        self._slots = threading.BoundedSemaphore(policy.slots)
        self._lock = threading.Lock()
        self.counts = dict.fromkeys(COUNTERS, 0)
        self.pid = os.getpid()
        db = connect(state_file)
        db.execute(
            "CREATE TABLE IF NOT EXISTS searches (id INTEGER PRIMARY KEY, client TEXT NOT NULL,"
            " pid INTEGER NOT NULL, started REAL NOT NULL)"
        )
        columns = ", ".join(f"{name} INTEGER NOT NULL" for name in COUNTERS)
        db.execute(f"CREATE TABLE IF NOT EXISTS workers (pid INTEGER PRIMARY KEY, {columns})")

    @contextmanager
    def search(self, client: str) -> Iterator[None]:
        """Hold a slot for one search of `client`; 503 or 429 (HTTPException) if refused."""
        if not self._slots.acquire(blocking=False):
            self._count(refused_busy=1)
            raise ServiceUnavailable(
                f"every search of this server is busy ({self.policy.slots} a worker); "
                f"moves of players that do not search are served at once",
                retry_after=RETRY_AFTER,
            )
        try:
            row, contended = self._enter(client)
            if contended:  # the rate counts (and bites) only while others search too
                try:
                    self._hit_rate(client)
                except BaseException:
                    self._leave(row, done=False)
                    raise
            try:
                yield
            finally:
                self._leave(row, done=True)
        finally:
            self._slots.release()

    def _enter(self, client: str) -> tuple[int, bool]:
        """Record the search of `client` as running; (its row, whether others search)."""
        db = connect(self.state_file)
        now = time.time()
        with transaction(db):
            db.execute("DELETE FROM searches WHERE started < ?", (now - STALE_SECONDS,))
            mine, others = db.execute(
                "SELECT COUNT(*) FILTER (WHERE client = ?), COUNT(*) FILTER (WHERE client != ?)"
                " FROM searches",
                (client, client),
            ).fetchone()
            if others and mine >= self.policy.per_client:
                self._count(refused_client=1)
                refused = True
            else:
                row = db.execute(
                    "INSERT INTO searches (client, pid, started) VALUES (?, ?, ?)",
                    (client, self.pid, now),
                ).lastrowid
                self._count(running=1)
                refused = False
        if refused:
            raise TooManyRequests(
                f"this client already runs {mine} searches while others wait "
                f"(at most {self.policy.per_client} at once each)",
                retry_after=RETRY_AFTER,
            )
        return row, bool(others)

    def _hit_rate(self, client: str) -> None:
        """Count one search against the rate of `client`; 429 once it is spent."""
        if self.limiter.hit(self.rate, "searches", client):
            return
        self._count(refused_client=1)
        reset = self.limiter.get_window_stats(self.rate, "searches", client).reset_time
        raise TooManyRequests(
            f"this client started its {self.rate} searches while others wait",
            retry_after=max(1, math.ceil(reset - time.time())),
        )

    def _leave(self, row: int, done: bool) -> None:
        db = connect(self.state_file)
        with transaction(db):
            db.execute("DELETE FROM searches WHERE id = ?", (row,))
            self._count(running=-1, done=int(done))

    def _count(self, **changes: int) -> None:
        """Change this worker's counters and publish them to the shared state (within the
        caller's transaction, if any: the connection is this thread's)."""
        with self._lock:
            for name, change in changes.items():
                self.counts[name] += change
            self.counts["peak"] = max(self.counts["peak"], self.counts["running"])
            values = [self.counts[name] for name in COUNTERS]
        connect(self.state_file).execute(
            f"INSERT OR REPLACE INTO workers VALUES (?, {', '.join('?' * len(COUNTERS))})",
            (self.pid, *values),
        )

    def load(self) -> dict:
        """The policy, every worker's counters and the searches running now, server-wide."""
        db = connect(self.state_file)
        workers = [
            dict(zip(("pid", *COUNTERS), row, strict=True))
            for row in db.execute(f"SELECT pid, {', '.join(COUNTERS)} FROM workers ORDER BY pid")
        ]
        running, clients = db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT client) FROM searches WHERE started >= ?",
            (time.time() - STALE_SECONDS,),
        ).fetchone()
        return {
            "search_slots": self.policy.slots,
            "per_client": self.policy.per_client,
            "rate": self.policy.rate,
            "searches_running": running,
            "clients_searching": clients,
            "workers": workers,
        }
