"""az-net as the main job refits it, beside the zoo's networks.

The policy-value network learns from the same store of labelled positions as the zoo
(the teacher's value of every move: its policy a soft choice among them, its value the
best move's final margin, `teacher_targets`), keeps Adam's state from one refit to the
next, and is judged alone by its policy head's favourite move (`az-net`) and in its gate
by az's search. It does not sit at the table: the games are the other players'.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mancala.nn_lib.policy_value import NAME, PolicyValue, teacher_targets


class PolicyValueLearner:
    """The policy-value network `net` with the zoo network's refit and save."""

    name = NAME

    def __init__(self, net: PolicyValue) -> None:
        self.net = net

    @property
    def path(self) -> Path:
        return self.net.path

    @path.setter
    def path(self, path: Path) -> None:
        self.net.path = Path(path)

    def fit(
        self,
        rel: np.ndarray,
        gains: np.ndarray,
        mask: np.ndarray,
        *,
        epochs: int = 1,
        batch_size: int = 256,
        progress: Callable[[str], None] | None = None,
        learning_rate: float | None = None,
        missed_weight: float = 1.0,
        stop: Callable[[], bool] | None = None,
    ) -> float:
        """Fit both heads to the teacher's move values `gains` of positions `rel` (the
        zoo's examples, `mancala.learn.data`); the last loss. `missed_weight` is the
        zoo's alone; `progress` gets nothing (one Keras fit)."""
        targets = teacher_targets(rel, gains, mask, self.net.value_scale, self.net.score_weight)
        return self.net.fit(
            targets, epochs=epochs, batch_size=batch_size, learning_rate=learning_rate, stop=stop
        )

    def save(self, **meta: Any) -> Path:
        return self.net.save(**meta)


def player_of(net: Any, seed: int | None = None) -> Any:
    """The player of a network the main job refits: a zoo network's greedy move, or
    az-net's policy head's favourite."""
    if isinstance(net, PolicyValueLearner):
        from mancala.ai.az import AZNet

        return AZNet(seed, net=net.net)
    from mancala.ai.network import NetworkPlayer

    return NetworkPlayer(seed=seed, net=net)
