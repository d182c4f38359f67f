"""The one type of the networks' training examples, whichever game built them and
whichever network learns them (`mancala.games.example_builders` builds them from records;
the zoo's networks and the policy-value network fit them).

>>> import numpy as np
>>> part = Examples(np.zeros((2, 3)), np.ones((2, 2)), np.ones((2, 2), bool))
>>> both = Examples.joined([part, part])
>>> len(both.inputs), len(tuple(both)), both.value is None
(4, 3, True)
>>> inputs, moves, mask = both.take(np.array([0, 3]))
>>> inputs.shape, moves.shape
((2, 3), (2, 2))
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Examples:
    """Examples, a row each: `inputs`, a position as its game encodes it for the networks
    (on Tak's zoo networks, a few moves of one); `moves`, a number a move (the teacher's
    values of the moves in the game's units, or a policy the network's policy head
    learns); `mask`, the moves present (the legal ones); `value`, the position's value
    target where the examples have one (a policy-value network's), else None.

    It reads as the tuple of its columns, the value last where there is one, so that
    `inputs, moves, mask = examples` and `fit(*examples)` read it."""

    inputs: np.ndarray
    moves: np.ndarray
    mask: np.ndarray
    value: np.ndarray | None = None

    def columns(self) -> tuple[np.ndarray, ...]:
        """The columns, the value last where there is one."""
        three = (self.inputs, self.moves, self.mask)
        return three if self.value is None else (*three, self.value)

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter(self.columns())

    def __getitem__(self, column: int) -> np.ndarray:
        return self.columns()[column]

    def __len__(self) -> int:
        return len(self.columns())

    def take(self, rows: np.ndarray | slice) -> Examples:
        """The examples of `rows` (indices, a mask or a slice)."""
        return Examples(*(column[rows] for column in self.columns()))

    @classmethod
    def joined(cls, parts: Sequence[Examples | tuple]) -> Examples:
        """`parts` one after another, column by column."""
        return cls(*(np.concatenate(column) for column in zip(*parts)))
