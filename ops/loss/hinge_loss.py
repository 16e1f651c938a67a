"""hinge_loss (+ _grad): the hinge loss of scores against 0/1 labels.

With y = 2 * Labels - 1 (in {-1, 1}):

    Loss    = max(0, 1 - y * Logits)
    dLogits = -y * dLoss where 1 - y * Logits > 0, else 0
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import In, Out
from paddle_ir.ops.simple_op import register_simple, same_shape


def _infer(ctx):
    same_shape(ctx, "Logits", "Labels")
    ctx.set_output("Loss", ctx.input_shape("Logits"), ctx.input_dtype("Logits"))


def _forward(attrs, logits, labels):
    return np.maximum(0, 1 - (2 * labels - 1) * logits).astype(logits.dtype)


def _backward(attrs, logits, labels, dloss):
    sign = 2 * labels - 1
    return np.where(1 - sign * logits > 0, -sign * dloss, 0).astype(logits.dtype)


register_simple("hinge_loss", [In("Logits", "scores [N, 1]"), In("Labels", "0/1, Logits' shape")],
                [Out("Loss", "Logits' shape")], [], _infer, _forward, backward=_backward,
                wrt=["Logits"], out_slot="Loss", doc=__doc__)
