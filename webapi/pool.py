"""Players made once per spec and lent to one request at a time.

Players come from the registry only (`make_player`), within the API's `Limits`; a made
player is kept per spec, because a network player costs a Keras load. A player serves
one request at a time (search players keep tables between moves and are not written
for two threads at once); a request that finds every player of its spec busy gets a new
one rather than waiting, so a request's time is its own search's, bounded by the limits.
Players that read files (networks, the solver) are made one at a time: the first network
player imports Keras and TensorFlow, whose import breaks (for good, in that process) when
two threads run it at once; the others are made at once, never waiting behind a load.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from mancala.ai.base import Player
from mancala.ai.limits import REGISTRY_LIMITS, Limits
from mancala.ai.registry import make_player, reads_files


class PlayerPool:
    """Players made by spec on first use and kept for later requests: at most `size` idle
    players, the least recently used dropped first. Each is lent to one caller at a time."""

    def __init__(
        self, size: int = 32, seed: int | None = None, limits: Limits = REGISTRY_LIMITS
    ) -> None:
        self.size, self.seed, self.limits = size, seed, limits
        self._idle: OrderedDict[str, list[Player]] = OrderedDict()
        self._lock = threading.Lock()
        self._making = threading.Lock()

    @contextmanager
    def player(self, spec: str) -> Iterator[Player]:
        """The player `spec`, held for the caller alone; ValueError if it cannot be made."""
        with self._lock:
            idle = self._idle.get(spec)
            player = idle.pop() if idle else None
        if player is None:
            with self._making if reads_files(spec) else nullcontext():
                player = make_player(spec, seed=self.seed, limits=self.limits)
        try:
            yield player
        finally:
            self._keep(spec, player)

    def _keep(self, spec: str, player: Player) -> None:
        with self._lock:
            self._idle.setdefault(spec, []).append(player)
            self._idle.move_to_end(spec)
            while sum(map(len, self._idle.values())) > self.size:
                oldest = next(iter(self._idle))
                self._idle[oldest].pop(0)
                if not self._idle[oldest]:
                    del self._idle[oldest]
