"""The training losses of the networks, over the legal moves only (y_true carries the mask)."""

from __future__ import annotations

from typing import Any


def masked_mse(y_true: Any, y_pred: Any) -> Any:
    """Mean squared error over the legal moves only: y_true = [targets | mask]."""
    from keras import ops

    h = y_pred.shape[-1]
    target, mask = y_true[:, :h], y_true[:, h:]
    return ops.sum(mask * ops.square(y_pred - target), axis=-1) / ops.maximum(
        ops.sum(mask, axis=-1), 1.0
    )


def masked_policy_loss(y_true: Any, y_pred: Any) -> Any:
    """Cross-entropy between the teacher's soft choice and the softmax of the outputs over
    the legal moves: y_true = [target probabilities | mask]."""
    from keras import ops

    h = y_pred.shape[-1]
    target, mask = y_true[:, :h], y_true[:, h:]
    logits = y_pred + (mask - 1.0) * 1e4
    log_p = logits - ops.logsumexp(logits, axis=-1, keepdims=True)
    return -ops.sum(target * mask * log_p, axis=-1)
