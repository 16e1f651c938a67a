"""partial_sum (+ _grad): the sum of the same column range of several matrices.

Every X[i] is [N, D]; with s = start_index (negative counts from D) and
l = length (-1: to the end):

    Out = X[0][:, s:s+l] + X[1][:, s:s+l] + ...        [N, l]
    dX[i][:, s:s+l] = dOut, 0 in the other columns
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import In, Out
from paddle_ir.ops.simple_op import register_simple
from paddle_ir.ops.tensor.partial_concat import RANGE_ATTRS, column_range, infer_columns


def _infer(ctx):
    _, start, stop = infer_columns(ctx)
    ctx.set_output("Out", (ctx.input_shape("X", 0)[0], -1 if start < 0 else stop - start),
                   ctx.input_dtype("X"))


def _forward(attrs, xs):
    start, stop = column_range(attrs, xs[0].shape[1])
    out = xs[0][:, start:stop].copy()
    for x in xs[1:]:
        out += x[:, start:stop]
    return out


def _backward(attrs, xs, dout):
    start, stop = column_range(attrs, xs[0].shape[1])
    grads = []
    for x in xs:
        dx = np.zeros(x.shape, dout.dtype)
        dx[:, start:stop] = dout
        grads.append(dx)
    return grads


register_simple("partial_sum", [In("X", "[N, D] matrices of one shape", duplicable=True)],
                [Out("Out", "[N, length]")], RANGE_ATTRS, _infer, _forward,
                backward=_backward, wrt=["X"], doc=__doc__)
