"""Stopping a command cleanly: SIGTERM is treated like Ctrl+C, and writes hold both off.

A long-running command runs its body through `run_command`: Ctrl+C stops it with exit
code 130, SIGTERM (a `kill`, a container stop) with 143, each with one line saying how
long it ran and what was kept; bad input (ValueError) is `prog: message` and 2. Code that
must not be cut halfway (appending a game, saving weights) runs inside `signals_held()`,
which delivers a Ctrl+C or SIGTERM that arrives meanwhile when the block ends; a long
step inside it (a fit) asks whether one came and ends at its next safe point.
"""

from __future__ import annotations

import errno
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

HELD = (signal.SIGINT, signal.SIGTERM)
_sigterm_arrived = False  # within sigterm_as_interrupt: a SIGTERM came
_watching = False  # within sigterm_as_interrupt


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: a KeyboardInterrupt, so that every Ctrl+C path handles it too."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    global _sigterm_arrived
    _sigterm_arrived = True
    raise Terminated


def stop_if_asked() -> None:
    """Raise Terminated if a SIGTERM arrived: for the loops of a long command, since the one
    raised by the signal can land where Python swallows it (an object's `__del__`)."""
    if _watching and _sigterm_arrived:
        raise Terminated


def terminated(stop: KeyboardInterrupt) -> bool:
    """True when `stop` came from SIGTERM, also when a library turned the Terminated into a
    KeyboardInterrupt of its own (Ray's waits do)."""
    return isinstance(stop, Terminated) or _sigterm_arrived


def exit_code(stop: KeyboardInterrupt) -> int:
    """128 + the signal's number: 143 for SIGTERM, 130 for Ctrl+C."""
    return 128 + (signal.SIGTERM if terminated(stop) else signal.SIGINT)


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block SIGTERM raises Terminated (a KeyboardInterrupt) in the main thread."""
    global _sigterm_arrived, _watching
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _sigterm_arrived, _watching = False, True
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        _watching = False


@contextmanager
def signals_held() -> Iterator[Callable[[], bool]]:
    """Delay Ctrl+C and SIGTERM until the block ends (only possible in the main thread);
    the first one that arrived is then raised again as usual. The block gets a function
    saying whether one has arrived, so a long step can end early at a safe point."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    caught: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, _: caught.append(signum)) for sig in HELD}
    try:
        yield lambda: bool(caught)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if caught:
            signal.raise_signal(caught[0])


def run_command(prog: str, body: Callable[[], int], kept: str) -> int:
    """`body()`'s exit code; ValueError is `prog: message` (2); Ctrl+C (130) and SIGTERM
    (143) print `prog: interrupted after N s; <kept>` on stderr; a full disk stops it
    with a line saying so and what was kept (1)."""
    began = time.perf_counter()
    try:
        with sigterm_as_interrupt():
            return body()
    except ValueError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
            raise
        print(f"{prog}: stopped, cannot write: {error}; {kept}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt as stop:
        how = "terminated (SIGTERM)" if terminated(stop) else "interrupted"
        seconds = time.perf_counter() - began
        print(f"\n{prog}: {how} after {seconds:.0f} s; {kept}", file=sys.stderr, flush=True)
        return exit_code(stop)
