"""cross (+ _grad): the cross product of 3-vectors along one axis.

    Out = X x Y along `dim` (both of size 3 there);  dX = Y x dOut,  dY = dOut x X

`dim` -100 (Paddle's default) takes the first axis of size 3.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple, same_shape

_DEFAULT_DIM = -100


def _axis(dim: int, shape) -> int | None:
    if dim == _DEFAULT_DIM:
        return next((i for i, d in enumerate(shape) if d == 3), None)
    return dim % len(shape) if -len(shape) <= dim < len(shape) else None


def _infer(ctx):
    same_shape(ctx, "X", "Y")
    x = ctx.input_shape("X")
    axis = _axis(ctx.attr("dim"), x)
    ctx.enforce(axis is not None and x[axis] in (3, -1),
                lambda: f"dim {ctx.attr('dim')} must name an axis of size 3 of X {shape_str(x)}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))


def _forward(attrs, x, y):
    return np.cross(x, y, axis=_axis(attrs["dim"], x.shape))


def _backward(attrs, x, y, dout):
    axis = _axis(attrs["dim"], x.shape)
    return np.cross(y, dout, axis=axis), np.cross(dout, x, axis=axis)


register_simple("cross", [In("X"), In("Y", "X's shape")], [Out("Out", "X x Y")],
                [Attr("dim", "int", _DEFAULT_DIM, "the axis of size 3 (-100: the first)")],
                _infer, _forward, backward=_backward, wrt=["X", "Y"], doc=__doc__)
