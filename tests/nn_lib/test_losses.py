"""The loss of the networks that learn a position's moves together (Tak's)."""

import numpy as np

from mancala.nn_lib.choice import soft_choice
from mancala.nn_lib.losses import masked_mse, missed_weighted, value_and_choice


def loss_of(values: np.ndarray, mask: np.ndarray, outputs: np.ndarray) -> float:
    """The mean loss of `outputs` against a teacher's `values` (tanh-squashed as Tak's)."""
    target = np.where(mask, np.tanh(values / 8), 0.0)
    y_true = np.concatenate([target, soft_choice(values, mask, 1.0), mask], axis=1)
    out = value_and_choice(8.0)(y_true.astype(np.float32), outputs.astype(np.float32))
    return float(np.mean(np.asarray(out)))


def test_the_loss_prefers_the_teacher_s_order_and_ignores_moves_not_present():
    values = np.array([[3.0, 0.0, -2.0, 0.0]])
    mask = np.array([[True, True, True, False]])
    right = np.tanh(values / 8)
    swapped = right[:, [2, 1, 0, 3]]  # the best and the worst move exchanged
    assert loss_of(values, mask, right) < loss_of(values, mask, swapped)
    padded = right.copy()
    padded[0, 3] = 0.9  # the absent move: no part of the loss
    assert np.isclose(loss_of(values, mask, padded), loss_of(values, mask, right))


def test_the_choice_counts_beside_the_values():
    """Outputs equally far from the values score better when they keep the best move first."""
    values = np.array([[1.0, 0.0]])
    mask = np.ones((1, 2), bool)
    target = np.tanh(values / 8)
    kept = target + np.array([[0.05, -0.05]])  # the same squared error, either way
    turned = target + np.array([[-0.05, 0.05]])  # the gap between them narrowed
    assert loss_of(values, mask, kept) < loss_of(values, mask, turned)


def test_a_position_whose_first_choice_is_not_the_teacher_s_weighs_more():
    """Rows: the first choice right, wrong, and right once the illegal move is left out."""
    target = np.array([[0.5, 0.1, 0.0], [0.5, 0.1, 0.0], [0.5, 0.1, 0.0]], np.float32)
    mask = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 0]], np.float32)
    outputs = np.array([[0.4, 0.2, 0.1], [0.1, 0.3, 0.0], [0.4, 0.2, 0.9]], np.float32)
    y_true = np.concatenate([target, mask], axis=1)
    plain = np.asarray(masked_mse(y_true, outputs))
    weighted = np.asarray(missed_weighted(masked_mse, 3.0)(y_true, outputs))
    assert np.allclose(weighted, plain * [1.0, 3.0, 1.0])
    assert missed_weighted(masked_mse, 1.0) is masked_mse
