"""Perfect play for Kalah: an exact search backed by an endgame database, in numba.

The value of a position is the final store difference from now on, for the player to
move: the seeds the mover will still gain minus those the opponent will, with both
playing perfectly. It depends only on the houses, so positions are seen from the mover's
side (a "relative board": the mover's houses in sowing order, then the opponent's) and
stores play no part. `Solver.solve(state)` adds the stores back: the final store
difference of the game.

The endgame database holds the value of every relative board with at most `max_seeds`
seeds in the houses, one int8 each, at the board's combinatorial rank (compositions of n
seeds into 2*houses pits, levels of smaller n first). It is built level by level in
numba (a move either moves seeds into a store, to a smaller level, or only moves the
mover's seeds forward, which cannot cycle: same-level children are computed on demand)
and cached on disk under <repo>/cache/ with a checked header. Above it the search is
MTD(f): null-window alpha-beta with a two-tier transposition table of bounds keyed by the
exact rank, extra turns searched as the same player moving again, moves ordered by the
table's best move, extra turns and gains, and enhanced transposition cutoffs.

>>> from mancala.game_state import GameState
>>> solver = Solver(houses=3, max_seeds=6, cache_dir=None, progress=False)
>>> result = solver.solve(GameState.new(houses=3, seeds=2))
>>> result["value"], result["moves"], result["best"]
(4, {0: -8, 1: 4, 2: 0}, [1])
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import zlib
from pathlib import Path

import numpy as np
from numba import njit

from mancala.core.atomic import atomic_path
from mancala.core.deadline import Deadline
from mancala.core.paths import CACHE_DIR
from mancala.game_state import GameState
from mancala.games.sowing.view import houses_of, mover_view

FORMAT = "mancala-kalah-endgame-db"
VERSION = 1
HEADER_BYTES = 512
UNKNOWN = -128  # not yet computed, in the database while it is built
INF = 1000
DEFAULT_MAX_SEEDS = {6: 20}  # measured: see the README section on the solver
DB_ENTRY_BUDGET = 20_000_000  # other board sizes: the most seeds that fit this many boards
TT_BITS = 23
NO_LIMIT = 1 << 62
ETC_MARGIN = 10  # enhanced transposition cutoffs only this far above the database (measured)


# ----- ranking ---------------------------------------------------------------------------


def binomial_table(max_seeds: int, pits: int) -> np.ndarray:
    """binom[x, y] = C(x, y) for x < max_seeds + pits + 1, y <= pits (int64)."""
    rows = max_seeds + pits + 1
    table = np.zeros((rows, pits + 1), np.int64)
    for x in range(rows):
        for y in range(min(x, pits) + 1):
            table[x, y] = math.comb(x, y)
    return table


def entries(max_seeds: int, houses: int) -> int:
    """How many relative boards hold at most `max_seeds` seeds: C(max_seeds + 2h, 2h).

    >>> entries(20, 6)
    225792840
    """
    return math.comb(max_seeds + 2 * houses, 2 * houses)


@njit(cache=True)
def rank(b, binom, shift):
    """The index of the relative board b (read from pit `shift` on, cyclically): the
    boards with fewer seeds first, then lexicographic order of the counts."""
    k = b.shape[0]
    n = 0
    for i in range(k):
        n += b[i]
    idx = binom[n + k - 1, k]
    r = n
    for i in range(k - 1):
        a = b[(i + shift) % k]
        if a:
            kk = k - i
            idx += binom[r + kk - 1, kk - 1] - binom[r - a + kk - 1, kk - 1]
            r -= a
            if r == 0:
                break
    return idx


@njit(cache=True)
def _next_composition(b):
    """The next board of the same total in rank order; False after the last."""
    k = b.shape[0]
    j = k - 1
    while j > 0 and b[j] == 0:
        j -= 1
    if j == 0:
        return False
    s = b[j]
    b[j] = 0
    b[j - 1] += 1
    b[k - 1] = s - 1
    return True


# ----- the rules on relative boards ------------------------------------------------------


@njit(cache=True)
def _sides(b, h):
    """Seeds in the mover's houses and in the opponent's."""
    own = 0
    other = 0
    for i in range(h):
        own += b[i]
        other += b[h + i]
    return own, other


@njit(cache=True)
def apply_move(b, m, h, ec):
    """Sow house m of the mover on relative board b (in place): (gain, code).

    gain: seeds into the mover's store minus, at the end, the opponent's sweep;
    code 0: the opponent moves next, 1: the mover moves again, 2: the game is over.
    """
    s = b[m]
    b[m] = 0
    cycle = 2 * h + 1  # the mover's houses, store and the opponent's houses
    laps = s // cycle
    gain = laps
    if laps:
        for i in range(2 * h):
            b[i] += laps
    p = m
    for _ in range(s % cycle):
        p += 1
        if p == cycle:
            p = 0
        if p < h:
            b[p] += 1
        elif p == h:
            gain += 1
        else:
            b[p - 1] += 1
    if p < h and b[p] == 1:
        opposite = 2 * h - 1 - p
        if b[opposite] > 0 or ec:
            gain += 1 + b[opposite]
            b[p] = 0
            b[opposite] = 0
    own, other = _sides(b, h)
    if own == 0 or other == 0:
        for i in range(2 * h):
            b[i] = 0
        return gain + own - other, 2
    if p == h:
        return gain, 1
    return gain, 0


@njit(cache=True)
def _swap_into(src, dst, h):
    for i in range(h):
        dst[i] = src[h + i]
        dst[h + i] = src[i]


# ----- the endgame database --------------------------------------------------------------


@njit(cache=True)
def _db_value(b, h, ec, db, binom, scratch, depth):
    """The value of b, whose smaller levels are all known; same-level children on demand."""
    idx = rank(b, binom, 0)
    if db[idx] != UNKNOWN:
        return np.int64(db[idx])
    own, other = _sides(b, h)
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
                    _swap_into(child, scratch[depth + 1], h)
                    child[:] = scratch[depth + 1]
                    v = gain - _db_value(child, h, ec, db, binom, scratch, depth + 1)
            if v > best:
                best = v
    db[idx] = best
    return best


@njit(cache=True)
def _build_chunk(b, count, h, ec, db, binom, scratch):
    """Fill the values of the next `count` boards from b (advanced in place)."""
    for _ in range(count):
        _db_value(b, h, ec, db, binom, scratch, np.int64(0))
        if not _next_composition(b):
            return False
    return True


def build_database(
    houses: int, max_seeds: int, empty_capture: bool, progress: bool = True
) -> np.ndarray:
    """The values of every relative board with at most `max_seeds` seeds (int8)."""
    k = 2 * houses
    binom = binomial_table(max_seeds, k)
    db = np.full(entries(max_seeds, houses), UNKNOWN, np.int8)
    scratch = np.zeros((max_seeds * houses + 16, k), np.int64)
    began = time.perf_counter()
    total, done = len(db), 0
    chunk, shown = 1_000_000, 0.0
    for n in range(max_seeds + 1):
        b = np.zeros(k, np.int64)
        b[k - 1] = n
        level = math.comb(n + k - 1, k - 1)
        left = level
        while left > 0:
            step = min(chunk, left)
            _build_chunk(b, step, houses, empty_capture, db, binom, scratch)
            left -= step
            done += step
            elapsed = time.perf_counter() - began
            if progress and (elapsed - shown > 1 or done == total):
                shown = elapsed
                print(
                    f"\rendgame database: {done / total:6.1%} of {total:,} boards, "
                    f"level {n}/{max_seeds}, {elapsed:.0f} s",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
    if progress:
        print(file=sys.stderr)
    return db


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
        f.write(db.tobytes())


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
    or corrupt (its checksum is checked)."""
    if not header_matches(path, houses, max_seeds, empty_capture):
        return None
    db = np.fromfile(path, dtype=np.int8, offset=HEADER_BYTES)
    head = read_header(path)
    if len(db) != head["entries"] or zlib.crc32(db) != head["crc32"]:
        return None
    return db


def database(
    houses: int,
    max_seeds: int,
    empty_capture: bool,
    cache_dir: Path | str | None = "default",
    progress: bool = True,
) -> tuple[np.ndarray, float]:
    """The database from the cache, or built (and cached) now; (values, build seconds).
    cache_dir "default": `default_cache_dir()`; None: built in memory, not cached."""
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
    db = build_database(houses, max_seeds, empty_capture, progress)
    seconds = time.perf_counter() - began
    if path is not None:
        save_database(path, houses, max_seeds, empty_capture, db)
    return db, seconds


def default_cache_dir() -> Path:
    """$MANCALA_CACHE_DIR if set, else <repo>/cache."""
    return Path(os.environ.get("MANCALA_CACHE_DIR") or CACHE_DIR)


def default_max_seeds(houses: int, total: int | None = None) -> int:
    """The database size used for `houses` (capped at the seeds in the game, if given)."""
    n = DEFAULT_MAX_SEEDS.get(houses)
    if n is None:
        n = 0
        while entries(n + 1, houses) <= DB_ENTRY_BUDGET and n < 96:
            n += 1
    return n if total is None else min(n, total)


# ----- the search ------------------------------------------------------------------------


# The transposition table is one int64 array: buckets of two entries (key, data) side by
# side, 32 bytes, so a probe touches one cache line. data packs the lower and upper bound
# (int16 each, offset by BIAS), the best move and log2 of the subtree's node count.
BIAS = 1 << 15


@njit(cache=True)
def _slot(key, mask):
    x = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64((x >> np.uint64(24)) & np.uint64(mask)) * 4


@njit(cache=True)
def _pack(lo, hi, move, work):
    return (lo + BIAS) | ((hi + BIAS) << 16) | ((move + 1) << 32) | (work << 40)


@njit(cache=True)
def _probe(key, tt):
    """The data of `key` in the table, or -1."""
    i = _slot(key, (tt.shape[0] >> 2) - 1)
    if tt[i] == key:
        return tt[i + 1]
    if tt[i + 2] == key:
        return tt[i + 3]
    return -1


@njit(cache=True)
def _lower(data):
    return (data & 0xFFFF) - BIAS


@njit(cache=True)
def _upper(data):
    return ((data >> 16) & 0xFFFF) - BIAS


@njit(cache=True)
def _store(key, lo, hi, move, work, tt):
    """Add bounds of `key`; a new key takes the first tier if its subtree was bigger than
    the one there (which moves to the second tier), else the second tier."""
    i = _slot(key, (tt.shape[0] >> 2) - 1)
    if tt[i + 2] == key:
        i += 2
    elif tt[i] != key:
        if work >= (tt[i + 1] >> 40):
            tt[i + 2] = tt[i]
            tt[i + 3] = tt[i + 1]
        else:
            i += 2
        tt[i] = key
        tt[i + 1] = _pack(lo, hi, move, work)
        return
    old = tt[i + 1]
    lo = max(lo, _lower(old))
    hi = min(hi, _upper(old))
    tt[i + 1] = _pack(lo, hi, move, max(work, old >> 40))


@njit(cache=True)
def _search(boards, kids, work, ply, alpha, beta, h, ec, nmax, db, binom, tt, counter):
    """Fail-soft alpha-beta value of boards[ply] (more than nmax seeds) for the mover.
    kids[ply] holds its children, work[ply] the gains, codes, values and move order."""
    counter[0] += 1
    if counter[0] > counter[1]:  # out of budget: the caller throws this search away
        return 0
    start_nodes = counter[0]
    b = boards[ply]
    n = 0
    for i in range(2 * h):
        n += b[i]
    key = rank(b, binom, 0)
    lo, hi = -n, n
    first = -1
    data = _probe(key, tt)
    if data >= 0:
        lo = max(lo, _lower(data))
        hi = min(hi, _upper(data))
        first = ((data >> 32) & 0xFF) - 1
    if lo >= beta:
        return lo
    if hi <= alpha:
        return hi
    if lo == hi:
        return lo
    alpha = max(alpha, lo)
    beta = min(beta, hi)
    gains = work[ply, 0]
    codes = work[ply, 1]
    score = work[ply, 2]
    order = work[ply, 3]
    count = 0
    best = -INF
    best_move = -1
    etc = n > nmax + ETC_MARGIN
    for m in range(h):
        if b[m] == 0:
            continue
        child = kids[ply, m]
        child[:] = b
        gain, code = apply_move(child, m, h, ec)
        gains[m] = gain
        codes[m] = code
        v = -INF  # the exact value where cheap (game over, database), or a cutting bound
        if code == 2:
            v = gain
        else:
            nc = 0
            for i in range(2 * h):
                nc += child[i]
            if nc <= nmax:
                if code == 1:
                    v = gain + db[rank(child, binom, 0)]
                else:
                    v = gain - db[rank(child, binom, h)]
            elif etc:  # enhanced transposition cutoff: a bound of the child in the table
                cdata = _probe(rank(child, binom, 0 if code == 1 else h), tt)
                if cdata >= 0:
                    if code == 1 and gain + _lower(cdata) >= beta:
                        v = gain + _lower(cdata)
                    elif code == 0 and gain - _upper(cdata) >= beta:
                        v = gain - _upper(cdata)
        if v > -INF:
            if v > best:
                best, best_move = v, m
            continue
        score[m] = gain + 100 * code + (1000 if m == first else 0) + m
        j = count
        while j > 0 and score[order[j - 1]] < score[m]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = m
        count += 1
    for j in range(count):
        if best >= beta:
            break
        m = order[j]
        gain = gains[m]
        a = max(alpha, best)
        if codes[m] == 1:  # the mover again: the same side's view, the window shifted
            boards[ply + 1, :] = kids[ply, m]
            sign, lo, hi = 1, a - gain, beta - gain
        else:  # the opponent: the board turned round, the window negated
            _swap_into(kids[ply, m], boards[ply + 1], h)
            sign, lo, hi = -1, gain - beta, gain - a
        child_value = _search(
            boards, kids, work, ply + 1, lo, hi, h, ec, nmax, db, binom, tt, counter
        )
        v = gain + sign * child_value
        if v > best:
            best, best_move = v, m
    size = 0
    done = counter[0] - start_nodes
    while done > 0:
        done >>= 1
        size += 1
    if counter[0] > counter[1]:
        return best  # maybe wrong below an aborted search: never stored
    if best >= beta:
        _store(key, best, INF, best_move, size, tt)
    elif best <= alpha:
        _store(key, -INF, best, best_move, size, tt)
    else:
        _store(key, best, best, best_move, size, tt)
    return best


@njit(cache=True)
def _trivial(board, h, nmax, db, binom):
    """The value of a relative board when it is over or in the database, else -INF."""
    own, other = _sides(board, h)
    if own == 0 or other == 0:
        return own - other
    if own + other <= nmax:
        return np.int64(db[rank(board, binom, 0)])
    return -INF


@njit(cache=True, nogil=True)
def _null_window(board, beta, h, ec, nmax, db, binom, tt, counter, boards, kids, work):
    """A fail-soft bound of the value of `board`: >= beta, or < beta (a null window)."""
    boards[0, :] = board
    zero = np.int64(0)
    return _search(boards, kids, work, zero, beta - 1, beta, h, ec, nmax, db, binom, tt, counter)


# ----- the Python face -------------------------------------------------------------------


def relative_board(state: GameState) -> np.ndarray:
    """The houses of `state` from the mover's side: own houses, then the opponent's."""
    return houses_of(mover_view(state))


def store_lead(state: GameState) -> int:
    """The mover's store minus the opponent's: what a final value adds to a relative one."""
    me = state.player
    return state.board[state.store(me)] - state.board[state.store(1 - me)]


def check_solvable(state: GameState) -> None:
    """ValueError unless `state` is a Kalah position the solver can search."""
    if not isinstance(state, GameState):
        raise ValueError(f"the solver needs a GameState, not {type(state).__name__}")
    if state.variant != "kalah":
        raise ValueError(
            f"the solver plays Kalah only; {state.variant!r} is not supported "
            "(Sungka's relay sowing does not fit its database)"
        )
    if entries(sum(state.board), state.houses) >= 1 << 63:
        raise ValueError(
            f"kalah({state.houses},{state.seeds}) is too big for the solver: its boards "
            "cannot be numbered in 64 bits (try fewer houses or seeds)"
        )


class OutOfBudget(RuntimeError):
    """The search would need more nodes than it was given (`Solver.solve(..., nodes=)`),
    or more time (`deadline=`)."""


def scratch_plies(houses: int, total: int, max_seeds: int) -> int:
    """How deep a search from `total` seeds can go: a move that keeps every seed in the
    houses moves the mover's seeds forward, so at most total*(houses-1) of them follow
    each other before a level (seeds in the houses) is left."""
    return (max(total - max_seeds, 0) + 1) * (total * (houses - 1) + 1) + 2


def scratch_bytes(houses: int, total: int, max_seeds: int) -> int:
    """Bytes of the per-ply scratch of a search from `total` seeds (see `Solver._arrays`).

    >>> scratch_bytes(6, 48, 20) < 8 << 20 < scratch_bytes(10, 400, 9)
    True
    """
    k = 2 * houses
    return 8 * scratch_plies(houses, total, max_seeds) * (k + houses * k + 4 * houses)


class Solver:
    """Exact values of Kalah positions with `houses` houses under one capture rule.

    The endgame database (`max_seeds`, default `default_max_seeds`) is loaded from
    `cache_dir` or built there on first use ("default": $MANCALA_CACHE_DIR or <repo>/cache;
    None: built in memory only). The transposition table (2**tt_bits entries) persists
    between calls.
    """

    def __init__(
        self,
        houses: int = 6,
        empty_capture: bool = False,
        max_seeds: int | None = None,
        cache_dir: Path | str | None = "default",
        tt_bits: int = TT_BITS,
        progress: bool = True,
    ) -> None:
        if isinstance(houses, bool) or not isinstance(houses, int) or houses < 1:
            raise ValueError(f"houses must be a positive whole number, not {houses!r}")
        self.houses, self.empty_capture = houses, bool(empty_capture)
        self.max_seeds = default_max_seeds(houses) if max_seeds is None else max_seeds
        if self.max_seeds < 0:
            raise ValueError(f"max_seeds must be at least 0, not {self.max_seeds}")
        self.db, self.db_seconds = database(
            houses, self.max_seeds, self.empty_capture, cache_dir, progress
        )
        self.tt_bits, self.progress = tt_bits, progress
        self._binom_for = -1
        self._scratch: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.nodes = 0
        self.budget = NO_LIMIT  # nodes the searches may still visit (see `solve`)
        self.deadline = Deadline(None)  # when the searches stop (see `solve`)
        self._new_table()

    def _new_table(self) -> None:
        self.tt = np.full(2 << self.tt_bits, -1, np.int64)  # 2**tt_bits (key, data) pairs

    def binom_for(self, board: np.ndarray) -> np.ndarray:
        """The binomial table that ranks boards of up to `board`'s seeds."""
        total = int(board.sum())
        if self._binom_for < total:
            self.binom = binomial_table(max(total, self.max_seeds), 2 * self.houses)
            self._binom_for = total
        return self.binom

    def _arrays(self, total: int):
        """Per-ply scratch for a search from `total` seeds, as deep as a game can go."""
        k = 2 * self.houses
        plies = scratch_plies(self.houses, total, self.max_seeds)
        if self._scratch is None or len(self._scratch[0]) < plies:
            self._scratch = (
                np.zeros((plies, k), np.int64),
                np.zeros((plies, self.houses, k), np.int64),
                np.zeros((plies, 4, self.houses), np.int64),
            )
        return self._scratch

    def _check(self, state: GameState) -> None:
        check_solvable(state)
        if state.houses != self.houses or state.empty_capture != self.empty_capture:
            raise ValueError(
                f"this solver is for Kalah with {self.houses} houses and "
                f"empty_capture={self.empty_capture}, not {state.houses} and "
                f"{state.empty_capture}"
            )

    def _bound(self, board: np.ndarray, beta: int) -> int:
        """One null-window search: a value >= beta (a lower bound) or < beta (upper)."""
        boards, kids, work = self._arrays(int(board.sum()))
        counter = np.array([0, self.budget], np.int64)
        args = (self.houses, self.empty_capture, self.max_seeds, self.db, self.binom, self.tt)
        with self.deadline.stopping(counter):
            g = _null_window(board, beta, *args, counter, boards, kids, work)
        self.nodes += int(counter[0])
        self.budget -= int(counter[0])
        if self.budget < 0 or counter[1] < 0:
            raise OutOfBudget(f"no exact value within the budget ({self.nodes:,} nodes)")
        return int(g)

    def value(self, board: np.ndarray, guess: int = 0) -> int:
        """The exact value of a relative board for the mover (seeds gained from now on),
        by MTD(f) from `guess`: null-window searches until the bounds meet."""
        v = _trivial(board, self.houses, self.max_seeds, self.db, self.binom_for(board))
        if v > -INF:
            return int(v)
        n = int(board.sum())
        lower, upper = -n, n
        data = _probe(rank(board, self.binom, 0), self.tt)
        if data >= 0:  # bounds proved by earlier searches
            lower, upper = max(lower, _lower(data)), min(upper, _upper(data))
        g = min(max(guess, lower), upper)
        began = time.perf_counter()
        while lower < upper:
            beta = g + 1 if g == lower else g
            g = self._bound(board, beta)
            if g < beta:
                upper = g
            else:
                lower = g
            if self.progress and time.perf_counter() - began > 2:
                print(
                    f"MTD(f): value in [{lower}, {upper}] after {self.nodes:,} nodes, "
                    f"{time.perf_counter() - began:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        return g

    def at_least(self, board: np.ndarray, bound: int) -> bool:
        """Whether the value of a relative board is at least `bound`."""
        v = _trivial(board, self.houses, self.max_seeds, self.db, self.binom_for(board))
        if v > -INF:
            return bool(v >= bound)
        return self._bound(board, bound) >= bound

    def _children(self, state: GameState):
        """(move, gain, code, child relative board) for each legal move."""
        board = relative_board(state)
        out = []
        for move in state.legal_moves():
            child = board.copy()
            gain, code = apply_move(child, move, self.houses, self.empty_capture)
            if code == 0:
                swapped = np.empty_like(child)
                _swap_into(child, swapped, self.houses)
                child = swapped
            out.append((move, int(gain), int(code), child))
        return out

    def _move_value(self, gain: int, code: int, child: np.ndarray, guess: int) -> int:
        if code == 2:
            return gain
        if code == 1:
            return gain + self.value(child, guess - gain)
        return gain - self.value(child, gain - guess)

    def solve(
        self,
        state: GameState,
        all_moves: bool = True,
        nodes: int | None = None,
        guess: float = 0,
        deadline: Deadline | None = None,
    ) -> dict:
        """{"value", "moves": {move: value}, "best": [moves], "nodes", "seconds"}: final
        store differences for the mover. all_moves=False: "moves" holds the best only.
        nodes, deadline: raise OutOfBudget rather than search more nodes or longer.
        guess: where MTD(f) starts (a final store difference); a close one saves passes."""
        self._check(state)
        self.budget = NO_LIMIT if nodes is None else nodes
        self.deadline = deadline or Deadline(None)
        try:
            return self._solve(state, all_moves, round(guess))
        finally:
            self.budget = NO_LIMIT
            self.deadline = Deadline(None)

    def _solve(self, state: GameState, all_moves: bool, guess: int) -> dict:
        began, nodes = time.perf_counter(), self.nodes
        offset = store_lead(state)
        if state.is_over():
            return {"value": offset, "moves": {}, "best": [], "nodes": 0, "seconds": 0.0}
        children = self._children(state)
        values: dict[int, int] = {}
        guess = self.value(relative_board(state), guess - offset)
        for move, gain, code, child in children:
            if all_moves:
                values[move] = self._move_value(gain, code, child, guess)
            elif self._reaches(gain, code, child, guess):
                values[move] = guess
        best = max(values.values())
        return {
            "value": offset + best,
            "moves": {m: offset + v for m, v in values.items()},
            "best": [m for m, v in values.items() if v == best],
            "nodes": self.nodes - nodes,
            "seconds": time.perf_counter() - began,
        }

    def _reaches(self, gain: int, code: int, child: np.ndarray, target: int) -> bool:
        """Whether the move described reaches `target` (the position's value)."""
        if code == 2:
            return gain >= target
        if code == 1:
            return self.at_least(child, target - gain)
        return not self.at_least(child, gain - target + 1)
