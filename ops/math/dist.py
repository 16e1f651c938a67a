"""dist (+ _grad): the p-norm of X - Y (broadcast), as a [1] tensor.

With d = X - Y broadcast to their common shape:

    p = 0:     Out = count of d != 0              (gradient 0)
    p = inf:   Out = max |d|;   dd = sign(d) * dOut where |d| == Out
    p = -inf:  Out = min |d|;   dd = sign(d) * dOut where |d| == Out
    else:      Out = (sum |d|^p)^(1/p);   dd = sign(d) |d|^(p-1) / Out^(p-1) * dOut
    dX = dd summed to X's shape;  dY = -dd summed to Y's shape
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.broadcast import infer_numpy_broadcast, reduce_to_shape
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _infer(ctx):
    infer_numpy_broadcast(ctx, ("X", "Y"))
    ctx.set_output("Out", (1,), ctx.input_dtype("X"))


def _forward(attrs, x, y):
    d, p = np.abs(x - y), attrs["p"]
    if p == 0:
        out = np.count_nonzero(d)
    elif p == np.inf:
        out = d.max()
    elif p == -np.inf:
        out = d.min()
    else:
        out = np.sum(d ** p) ** (1.0 / p)
    return np.asarray([out], x.dtype)


def _backward(attrs, x, y, dout):
    diff, p = x - y, attrs["p"]
    out, g = _forward(attrs, x, y)[0], dout.reshape(())
    if p == 0 or out == 0:
        dd = np.zeros_like(diff)
    elif np.isinf(p):
        dd = np.where(np.abs(diff) == out, np.sign(diff), 0) * g
    else:
        dd = np.sign(diff) * np.abs(diff) ** (p - 1) / out ** (p - 1) * g
    return (reduce_to_shape(dd, x.shape).astype(x.dtype),
            (-reduce_to_shape(dd, y.shape)).astype(y.dtype))


register_simple("dist", [In("X"), In("Y", "broadcasts with X")], [Out("Out", "[1]")],
                [Attr("p", "float", 2.0, "the norm's order (0, inf and -inf included)")],
                _infer, _forward, backward=_backward, wrt=["X", "Y"], doc=__doc__)
