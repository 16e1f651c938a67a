"""bce_loss (+ _grad): binary cross entropy of probabilities, Paddle's (and PyTorch's) way.

    Out = -(Label * max(log X, -100) + (1 - Label) * max(log(1 - X), -100))
    dX  = dOut * (X - Label) / max(X * (1 - X), 1e-12)

The logs are clamped at -100 so a probability of exactly 0 or 1 gives a finite
loss. X must lie in [0, 1]: anything else is a KernelError, as in Paddle.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.registry import In, Out
from paddle_ir.ops.simple_op import register_simple, same_shape


def _infer(ctx):
    same_shape(ctx, "X", "Label")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def _forward(attrs, x, label):
    bad = ~((x >= 0) & (x <= 1))
    if bad.any():
        first = int(np.flatnonzero(bad.reshape(-1))[0])
        raise KernelError(f"bce_loss: X must hold probabilities in [0, 1], but X[{first}] = "
                          f"{x.reshape(-1)[first]!r}",
                          hint="apply sigmoid first, or use sigmoid_cross_entropy_with_logits")
    with np.errstate(divide="ignore"):
        log_x = np.maximum(np.log(x), -100)
        log_1mx = np.maximum(np.log(1 - x), -100)
    return (-(label * log_x + (1 - label) * log_1mx)).astype(x.dtype)


def _backward(attrs, x, label, dout):
    return (dout * (x - label) / np.maximum(x * (1 - x), 1e-12)).astype(x.dtype)


register_simple("bce_loss", [In("X", "probabilities in [0, 1]"), In("Label", "X's shape")],
                [Out("Out", "X's shape")], [], _infer, _forward, backward=_backward,
                wrt=["X"], doc=__doc__)
