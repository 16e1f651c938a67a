"""Elementwise functions of two tensors, broadcast as numpy does (forward only):

    atan2   Out = atan2(X1, X2)
    lerp    Out = X + Weight * (Y - X)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.broadcast import infer_numpy_broadcast
from paddle_ir.ops.registry import FLOATS, In, Out, register_op

atan2 = register_op("atan2", inputs=[In("X1"), In("X2")], outputs=[Out("Out")], doc=__doc__)


@atan2.infer_shape
def _(ctx):
    ctx.set_output("Out", infer_numpy_broadcast(ctx, ("X1", "X2")), ctx.input_dtype("X1"))


@atan2.kernel(dtypes=FLOATS)
def atan2_kernel(attrs, x1, x2):
    return np.arctan2(x1, x2).astype(x1.dtype)


lerp = register_op("lerp", inputs=[In("X"), In("Y"), In("Weight")], outputs=[Out("Out")],
                   doc=__doc__)


@lerp.infer_shape
def _(ctx):
    ctx.set_output("Out", infer_numpy_broadcast(ctx, ("X", "Y", "Weight")), ctx.input_dtype("X"))


@lerp.kernel(dtypes=FLOATS)
def lerp_kernel(attrs, x, y, weight):
    return (x + weight * (y - x)).astype(x.dtype)
