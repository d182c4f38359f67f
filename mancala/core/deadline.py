"""Hard deadlines for searches that run in numba.

A numba kernel cannot read a clock, so a search is stopped from outside: each kernel
keeps a counter array, `counter[0]` the work done (nodes, simulations) and `counter[1]`
the most it may do, and stops (returning its best so far) once `counter[0] > counter[1]`.
`Deadline.stopping(counter)` registers the counter with one watchdog thread per process,
which sets `counter[1] = -1` when the deadline passes. The kernels must be compiled with
`nogil=True`, so that the watchdog (and every other thread) runs while they search.

Python code may write `counter[1]` only outside a `stopping` block: inside one, the
watchdog owns it.

>>> import numpy as np
>>> counter = np.array([0, 10**12])
>>> with Deadline(0.0).stopping(counter):
...     pass
>>> int(counter[1])
-1
>>> Deadline(None).expired()
False
"""

from __future__ import annotations

import itertools
import math
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np


class Deadline:
    """The moment `seconds` from now (never, for None) after which searches stop."""

    def __init__(self, seconds: float | None) -> None:
        self.end = math.inf if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float:
        """Seconds left (inf without a deadline, 0 once it has passed)."""
        return max(0.0, self.end - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.end

    @contextmanager
    def stopping(self, counter: np.ndarray) -> Iterator[None]:
        """While the block runs, set `counter[1]` to -1 at the deadline (at once if past)."""
        if self.end == math.inf:
            yield
            return
        if self.expired():
            counter[1] = -1
            yield
            return
        key = _WATCHDOG.watch(self.end, counter)
        try:
            yield
        finally:
            _WATCHDOG.forget(key)


class _Watchdog:
    """One daemon thread that lowers the limits of the counters whose time has come."""

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._cond = threading.Condition()
        self._watched: dict[int, tuple[float, np.ndarray]] = {}
        self._keys = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, end: float, counter: np.ndarray) -> int:
        with self._cond:
            key = next(self._keys)
            self._watched[key] = (end, counter)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="deadline", daemon=True)
                self._thread.start()
            self._cond.notify()
            return key

    def forget(self, key: int) -> None:
        with self._cond:
            self._watched.pop(key, None)

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                for key, (end, counter) in list(self._watched.items()):
                    if end <= now:
                        counter[1] = -1
                        del self._watched[key]
                ends = [end for end, _ in self._watched.values()]
                self._cond.wait(min(ends) - now if ends else None)


_WATCHDOG = _Watchdog()
