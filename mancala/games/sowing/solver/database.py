"""The endgame database: the value of every relative board with at most `max_seeds` seeds
in the houses, one int8 each, at the board's rank (levels of fewer seeds first).

It is built level by level in numba (a move either moves seeds into a store, to a smaller
level, or only moves the mover's seeds forward, which cannot cycle: same-level children
are computed on demand) and cached on disk under <repo>/cache/: a JSON header of
`HEADER_BYTES` (format, version, rules, size, CRC-32), then the values.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import zlib
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mancala.core.atomic import atomic_path
from mancala.core.jit import njit
from mancala.core.paths import cache_dir as default_cache_dir
from mancala.games.sowing.solver.ranking import (
    binomial_table,
    entries,
    next_composition,
    rank,
    unrank,
)
from mancala.games.sowing.solver.rules import INF, apply_move, sides, swap_into

if TYPE_CHECKING:
    from mancala.game_state import GameState

FORMAT = "mancala-kalah-endgame-db"
VERSION = 1
HEADER_BYTES = 512
UNKNOWN = -128  # not yet computed, in the database while it is built
DEFAULT_MAX_SEEDS = {6: 20}  # measured: docs/solver.md
CHUNK = 1_000_000  # boards a thread builds at a time
MAX_DB_SEEDS = 28  # Kalah(6,*) with 28 seeds left: 5.6e9 boards of a byte
DB_ENTRY_BUDGET = 20_000_000  # other board sizes: the most seeds that fit this many boards


# ----- building --------------------------------------------------------------------------


@njit(cache=True)
def _db_value(b, h, ec, db, binom, scratch, depth):
    """The value of b, whose smaller levels are all known; same-level children on demand."""
    idx = rank(b, binom, 0)
    if db[idx] != UNKNOWN:
        return np.int64(db[idx])
    own, other = sides(b, h)
    if own == 0 or other == 0:
        best = own - other
    else:
        best = -INF
        child = scratch[depth]
        for m in range(h):
            if b[m] == 0:
                continue
            child[:] = b
            gain, code = apply_move(child, m, h, ec)
            if code == 2:
                v = gain
            elif code == 1:
                v = gain + _db_value(child, h, ec, db, binom, scratch, depth + 1)
            else:
                known = np.int64(db[rank(child, binom, h)])
                v = gain - known
                if known == UNKNOWN:
                    swap_into(child, scratch[depth + 1], h)
                    child[:] = scratch[depth + 1]
                    v = gain - _db_value(child, h, ec, db, binom, scratch, depth + 1)
            if v > best:
                best = v
    db[idx] = best
    return best


@njit(cache=True, nogil=True)
def _build_chunk(b, count, h, ec, db, binom, scratch):
    """Fill the values of the next `count` boards from b (advanced in place)."""
    for _ in range(count):
        _db_value(b, h, ec, db, binom, scratch, np.int64(0))
        if not next_composition(b):
            return False
    return True


def _show_progress(done: int, total: int, level: int, max_seeds: int, elapsed: float) -> None:
    print(
        f"\rendgame database: {done / total:6.1%} of {total:,} boards, "
        f"level {level}/{max_seeds}, {elapsed:.0f} s",
        end="",
        file=sys.stderr,
        flush=True,
    )


class BuildStopped(KeyboardInterrupt):
    """A build stopped by Ctrl+C or SIGTERM: `values` are those of every level it had
    finished, a whole database of `max_seeds` seeds (-1: none finished)."""

    def __init__(self, values: np.ndarray, max_seeds: int) -> None:
        super().__init__()
        self.values, self.max_seeds = values, max_seeds


def build_database(
    houses: int,
    max_seeds: int,
    empty_capture: bool,
    progress: bool = True,
    workers: int = 1,
    chunk_size: int = CHUNK,
    known: np.ndarray | None = None,
) -> np.ndarray:
    """The values of every relative board with at most `max_seeds` seeds (int8), each
    level's chunks of `chunk_size` boards shared among `workers` threads. Two threads may
    reach the same board at once: both write its one value, so the race is harmless.
    `known`, the values of a smaller database of the same rules, gives its levels (a
    database is the one of fewer seeds followed by the levels above it). A Ctrl+C (a
    KeyboardInterrupt) ends the chunks under way and raises `BuildStopped`."""
    k = 2 * houses
    binom = binomial_table(max_seeds, k)
    db = np.full(entries(max_seeds, houses), UNKNOWN, np.int8)
    start = 0 if known is None else min(_seeds(known, houses), max_seeds) + 1
    db[: entries(start - 1, houses)] = known[: entries(start - 1, houses)] if start else 0
    began = time.perf_counter()
    total, done, shown = len(db), entries(start - 1, houses), 0.0

    def chunk(level: int, first: int, count: int) -> int:
        scratch = np.zeros((max_seeds * houses + 16, k), np.int64)
        _build_chunk(unrank(level, first, k), count, houses, empty_capture, db, binom, scratch)
        return count

    n = start
    with ThreadPoolExecutor(max_workers=workers) as pool:
        try:
            for n in range(start, max_seeds + 1):
                size = math.comb(n + k - 1, k - 1)  # the boards of level n
                jobs = [
                    pool.submit(chunk, n, first, min(chunk_size, size - first))
                    for first in range(0, size, chunk_size)
                ]
                for job in as_completed(jobs):
                    done += job.result()
                    elapsed = time.perf_counter() - began
                    if progress and (elapsed - shown > 1 or done == total):
                        shown = elapsed
                        _show_progress(done, total, n, max_seeds, elapsed)
        except KeyboardInterrupt:
            pool.shutdown(wait=True, cancel_futures=True)
            if progress:
                print(file=sys.stderr)
            raise BuildStopped(db[: entries(n - 1, houses)], n - 1) from None
    if progress:
        print(file=sys.stderr)
    return db


# ----- the file --------------------------------------------------------------------------


def _header(houses: int, max_seeds: int, empty_capture: bool, data: np.ndarray) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": "kalah-empty-capture" if empty_capture else "kalah",
        "houses": houses,
        "max_seeds": max_seeds,
        "entries": int(len(data)),
        "crc32": zlib.crc32(data) if len(data) else 0,
    }


def cache_path(cache_dir: Path, houses: int, max_seeds: int, empty_capture: bool) -> Path:
    """Where the database of these rules lives in `cache_dir`."""
    rules = "ec" if empty_capture else "std"
    return Path(cache_dir) / f"kalah-db-h{houses}-n{max_seeds}-{rules}.bin"


def save_database(path: Path, houses: int, max_seeds: int, empty_capture: bool, db) -> None:
    """Write header + values atomically (a temp file in the same folder, then os.replace)."""
    header = json.dumps(_header(houses, max_seeds, empty_capture, db)).encode()
    with atomic_path(path, ".tmp") as tmp, open(tmp, "wb") as f:
        f.write(header.ljust(HEADER_BYTES - 1) + b"\n")
        db.tofile(f)  # no copy: the database may be most of the memory


def read_header(path: Path) -> dict | None:
    """The header of a database file, or None if it is missing or not one of ours."""
    try:
        with open(path, "rb") as f:
            head = json.loads(f.read(HEADER_BYTES))
    except (OSError, ValueError):
        return None
    return head if isinstance(head, dict) and head.get("format") == FORMAT else None


def header_matches(path: Path, houses: int, max_seeds: int, empty_capture: bool) -> bool:
    """A cheap check (no checksum): the file claims these rules and has the right size."""
    head = read_header(path)
    want = _header(houses, max_seeds, empty_capture, np.zeros(0, np.int8))
    size = HEADER_BYTES + entries(max_seeds, houses)
    if head is None or not path.exists() or path.stat().st_size != size:
        return False
    return all(head.get(key) == want[key] for key in ("version", "rules", "houses", "max_seeds"))


def load_database(path: Path, houses: int, max_seeds: int, empty_capture: bool):
    """The values stored at `path`, or None if the file is missing, foreign, truncated
    or corrupt (its checksum is checked). The file is mapped copy-on-write, so the
    processes of a machine share one copy in memory."""
    if not header_matches(path, houses, max_seeds, empty_capture):
        return None
    db = np.asarray(np.memmap(path, dtype=np.int8, mode="c", offset=HEADER_BYTES))
    head = read_header(path)
    if len(db) != head["entries"] or zlib.crc32(db) != head["crc32"]:
        return None
    return db


# ----- the cache -------------------------------------------------------------------------


def database(
    houses: int,
    max_seeds: int,
    empty_capture: bool,
    cache_dir: Path | str | None = "default",
    progress: bool = True,
    workers: int | None = None,
) -> tuple[np.ndarray, float]:
    """The database from the cache, or built (and cached) now by `workers` threads (every
    core by default); (values, build seconds). cache_dir "default": `default_cache_dir()`;
    None: built in memory, not cached."""
    if cache_dir == "default":
        cache_dir = default_cache_dir()
    path = None if cache_dir is None else cache_path(cache_dir, houses, max_seeds, empty_capture)
    if path is not None:
        db = load_database(path, houses, max_seeds, empty_capture)
        if db is not None:
            return db, 0.0
        if path.exists() and progress:
            print(f"{path} is not a valid database: rebuilding it", file=sys.stderr)
    began = time.perf_counter()
    workers = workers or os.cpu_count() or 1
    known = (
        None if cache_dir is None else smaller_cached(cache_dir, houses, max_seeds, empty_capture)
    )
    try:
        db = build_database(houses, max_seeds, empty_capture, progress, workers, known=known)
    except BuildStopped as stop:
        if path is not None and stop.max_seeds > (-1 if known is None else _seeds(known, houses)):
            kept = cache_path(cache_dir, houses, stop.max_seeds, empty_capture)
            save_database(kept, houses, stop.max_seeds, empty_capture, stop.values)
            if progress:
                print(f"stopped: the levels built are kept in {kept}", file=sys.stderr)
        raise
    seconds = time.perf_counter() - began
    if path is not None:
        save_database(path, houses, max_seeds, empty_capture, db)
    return db, seconds


def smaller_cached(cache_dir: Path | str, houses: int, max_seeds: int, empty_capture: bool):
    """The values of the largest valid database of these rules in `cache_dir` with fewer
    than `max_seeds` seeds (the first levels of the one asked for), or None."""
    for seeds in range(max_seeds - 1, -1, -1):
        values = load_database(
            cache_path(cache_dir, houses, seeds, empty_capture), houses, seeds, empty_capture
        )
        if values is not None:
            return values
    return None


def _seeds(values: np.ndarray, houses: int) -> int:
    """The seeds of a database of `len(values)` entries."""
    seeds = 0
    while entries(seeds, houses) < len(values):
        seeds += 1
    return seeds


def default_max_seeds(houses: int, total: int | None = None) -> int:
    """The database size used for `houses` (capped at the seeds in the game, if given)."""
    n = DEFAULT_MAX_SEEDS.get(houses)
    if n is None:
        n = 0
        while entries(n + 1, houses) <= DB_ENTRY_BUDGET and n < 96:
            n += 1
    return n if total is None else min(n, total)


def largest_cached(houses: int, empty_capture: bool, cache_dir: Path | None = None) -> int:
    """The most seeds (up to MAX_DB_SEEDS) of a cached database of these rules whose
    header checks out (-1 if none)."""
    folder = Path(cache_dir or default_cache_dir())
    for n in range(MAX_DB_SEEDS, -1, -1):
        if header_matches(cache_path(folder, houses, n, empty_capture), houses, n, empty_capture):
            return n
    return -1


def database_seeds(state: GameState, max_seeds: int | None) -> int:
    """The database size for solving `state`: `max_seeds` if given, else the largest
    cached (at least the default), never more than the seeds in the game."""
    total = 2 * state.houses * state.seeds
    if max_seeds is None:
        cached = largest_cached(state.houses, state.empty_capture)
        max_seeds = max(default_max_seeds(state.houses), cached)
    return min(max_seeds, total)
