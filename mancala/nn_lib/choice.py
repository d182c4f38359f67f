"""Moves from per-move values: the best legal one, or the teacher's soft choice."""

from __future__ import annotations

import numpy as np


def masked_argmax(values: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The legal move with the highest value in each row (illegal ones never win)."""
    return np.where(legal, values, -np.inf).argmax(axis=1)


def soft_choice(gains: np.ndarray, mask: np.ndarray, temperature: float) -> np.ndarray:
    """The teacher's choice as probabilities: softmax of gains / temperature, legal moves."""
    logits = np.where(mask, gains / temperature, -np.inf)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)
