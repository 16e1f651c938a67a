"""minus (+ _grad): the difference of two tensors of one shape (Fluid's oldest subtraction).

    Out = X - Y;   dX = dOut,  dY = -dOut
"""

from __future__ import annotations

from paddle_ir.ops.registry import In, Out
from paddle_ir.ops.simple_op import register_simple, same_shape


def _infer(ctx):
    same_shape(ctx, "X", "Y")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


register_simple("minus", [In("X"), In("Y", "X's shape")], [Out("Out", "X - Y")], [],
                _infer, lambda attrs, x, y: x - y,
                backward=lambda attrs, x, y, dout: (dout.copy(), -dout),
                wrt=["X", "Y"], doc=__doc__)
