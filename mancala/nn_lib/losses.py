"""The training losses of the networks, over the legal moves only (y_true carries the mask)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _legal_only(outputs: Any, mask: Any) -> Any:
    """`outputs` with each move outside `mask` pushed far below the legal ones."""
    return outputs + (mask - 1.0) * 1e4


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
    logits = _legal_only(y_pred, mask)
    log_p = logits - ops.logsumexp(logits, axis=-1, keepdims=True)
    return -ops.sum(target * mask * log_p, axis=-1)


def value_and_choice(logit_scale: float) -> Callable[[Any, Any], Any]:
    """The loss of a network valuing each of a position's moves: the squared error of the
    values (`masked_mse`) plus the cross-entropy between the teacher's soft choice among
    the moves and the softmax of the values times `logit_scale` (`masked_policy_loss`):
    y_true = [target values | target probabilities | mask]."""

    def loss(y_true: Any, y_pred: Any) -> Any:
        from keras import ops

        h = y_pred.shape[-1]
        values, choice, mask = y_true[:, :h], y_true[:, h : 2 * h], y_true[:, 2 * h :]
        return masked_mse(ops.concatenate([values, mask], axis=-1), y_pred) + (
            masked_policy_loss(ops.concatenate([choice, mask], axis=-1), y_pred * logit_scale)
        )

    return loss


def missed_weighted(loss: Callable[[Any, Any], Any], weight: float) -> Callable[[Any, Any], Any]:
    """`loss` with each position's term times `weight` where the network's first choice
    among the legal moves is not the teacher's (y_true = [targets | ... | mask], the
    targets values or probabilities), as it is: hard positions learnt more."""
    if weight == 1.0:
        return loss

    def weighted(y_true: Any, y_pred: Any) -> Any:
        from keras import ops

        h = y_pred.shape[-1]
        mask = y_true[:, -h:]
        mine = ops.argmax(_legal_only(y_pred, mask), axis=-1)
        teachers = ops.argmax(_legal_only(y_true[:, :h], mask), axis=-1)
        missed = ops.cast(mine != teachers, y_pred.dtype)
        return loss(y_true, y_pred) * (1.0 + (weight - 1.0) * missed)

    return weighted
