"""squared_l2_distance (+ _grad): the squared Euclidean distance of each row of X to the
matching row of Y (or to Y's single row, broadcast).

X is [N, ...], Y is [N, ...] or [1, ...] with as many elements per row; rows are
flattened to K = prod(X.shape[1:]) values:

    sub_result = X - Y                       [N, K]
    Out[i]     = sum_k sub_result[i, k]^2     [N, 1]
    dX = 2 * sub_result * dOut;   dY = -dX, summed over the rows when Y has one row
"""

from __future__ import annotations

import math

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import In, Out
from paddle_ir.ops.simple_op import register_simple


def _known_prod(dims) -> int:
    return -1 if any(d < 0 for d in dims) else math.prod(dims)


def _infer(ctx):
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    ctx.enforce(len(x) >= 1 and len(y) == len(x),
                lambda: f"X and Y must have the same rank >= 1, got X {shape_str(x)} and Y "
                f"{shape_str(y)}")
    cols, y_cols = _known_prod(x[1:]), _known_prod(y[1:])
    ctx.enforce(cols < 0 or y_cols < 0 or cols == y_cols, lambda:
                f"a row of Y must hold as many values as a row of X, got X {shape_str(x)} and "
                f"Y {shape_str(y)}")
    ctx.enforce(y[0] in (1, -1) or x[0] < 0 or y[0] == x[0],
                lambda: f"Y must have X's rows ({x[0]}) or one row, got Y {shape_str(y)}")
    dtype = ctx.input_dtype("X")
    ctx.set_output("sub_result", (x[0], cols), dtype)
    ctx.set_output("Out", (x[0], 1), dtype)
    ctx.share_lod("X", "Out")


def _forward(attrs, x, y):
    n = x.shape[0]
    sub = x.reshape(n, -1) - y.reshape(y.shape[0], -1)
    return sub, (sub * sub).sum(axis=1, keepdims=True)


def _backward(attrs, x, y, sub, dout):
    dx = 2 * sub * dout
    dy = -dx.sum(axis=0, keepdims=True) if y.shape[0] == 1 else -dx
    return dx.reshape(x.shape), dy.reshape(y.shape)


register_simple("squared_l2_distance", [In("X", "[N, ...]"), In("Y", "[N, ...] or [1, ...]")],
                [Out("sub_result", "X - Y with rows flattened, [N, K]"),
                 Out("Out", "[N, 1]: the squared distances")], [], _infer, _forward,
                backward=_backward, wrt=["X", "Y"], keep=["sub_result"], doc=__doc__)
