"""modified_huber_loss (+ _grad): a smoothed hinge loss of scores against 0/1 labels.

With z = X * (2 * Y - 1) (IntermediateVal):

    Out = -4 z          if z < -1
          (1 - z)^2     if -1 <= z < 1
          0             otherwise
    dX  = dOut * (2Y - 1) * (-4 if z < -1; -2 (1 - z) if -1 <= z < 1; else 0)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import In, Out
from paddle_ir.ops.simple_op import register_simple, same_shape


def _infer(ctx):
    same_shape(ctx, "X", "Y")
    for slot in ("IntermediateVal", "Out"):
        ctx.set_output(slot, ctx.input_shape("X"), ctx.input_dtype("X"))


def _forward(attrs, x, y):
    z = x * (2 * y - 1)
    out = np.where(z < -1, -4 * z, np.where(z < 1, (1 - z) ** 2, 0))
    return z.astype(x.dtype), out.astype(x.dtype)


def _backward(attrs, x, y, z, dout):
    slope = np.where(z < -1, -4.0, np.where(z < 1, -2 * (1 - z), 0.0))
    return (dout * (2 * y - 1) * slope).astype(x.dtype)


register_simple("modified_huber_loss", [In("X", "scores [N, 1]"), In("Y", "0/1, X's shape")],
                [Out("IntermediateVal", "X * (2Y - 1)"), Out("Out", "X's shape")], [],
                _infer, _forward, backward=_backward, wrt=["X"], keep=["IntermediateVal"],
                doc=__doc__)
