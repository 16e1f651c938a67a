"""fsp (+ _grad): Out[n] = X[n] Y[n]^T / (H W), X and Y flattened to [C, H W].

`fsp` is the op type Paddle's programs carry (behind `layers.fsp_matrix`); the same op
is also registered as `fsp_matrix`, the name paddle-ir's earlier programs used.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import In, Out
from paddle_ir.ops.simple_op import register_simple


def _infer_fsp(ctx):
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    ctx.enforce(len(x) == 4 and len(y) == 4 and list(x[2:]) == list(y[2:]), lambda:
                f"X and Y must be [N, C, H, W] with the same H and W, got {list(x)}, {list(y)}")
    ctx.set_output("Out", (x[0], x[1], y[1]), ctx.input_dtype("X"))


def _flat(a):
    return a.reshape(a.shape[0], a.shape[1], -1)


def _fsp(attrs, x, y):
    hw = x.shape[2] * x.shape[3]
    return np.matmul(_flat(x), _flat(y).transpose(0, 2, 1)) / hw


def _fsp_grad(attrs, x, y, dout):
    hw = x.shape[2] * x.shape[3]
    dx = np.matmul(dout, _flat(y)) / hw
    dy = np.matmul(dout.transpose(0, 2, 1), _flat(x)) / hw
    return dx.reshape(x.shape), dy.reshape(y.shape)


for _op_type in ("fsp", "fsp_matrix"):
    register_simple(
        _op_type, [In("X", "[N, C1, H, W]"), In("Y", "[N, C2, H, W]")],
        [Out("Out", "[N, C1, C2]")], [], _infer_fsp, _fsp, backward=_fsp_grad,
        wrt=["X", "Y"], doc=__doc__)
