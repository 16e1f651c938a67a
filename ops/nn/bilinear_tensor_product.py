"""bilinear_tensor_product (+ _grad): Out[b, i] = X[b] W[i] Y[b]^T + Bias[i].
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import In, Out
from paddle_ir.ops.simple_op import register_simple


def _infer_btp(ctx):
    x, y, w = ctx.input_shape("X"), ctx.input_shape("Y"), ctx.input_shape("Weight")
    ctx.enforce(len(x) == 2 and len(y) == 2 and len(w) == 3, lambda:
                f"X [B, M], Y [B, N], Weight [size, M, N] expected, got {list(x)}, {list(y)}, "
                f"{list(w)}")
    ctx.enforce(w[1] < 0 or x[1] < 0 or w[1] == x[1], lambda: f"Weight.shape[1] {w[1]} != M {x[1]}")
    ctx.enforce(w[2] < 0 or y[1] < 0 or w[2] == y[1], lambda: f"Weight.shape[2] {w[2]} != N {y[1]}")
    ctx.set_output("Out", (x[0], w[0]), ctx.input_dtype("X"))


def _btp(attrs, x, y, w, bias):
    out = np.einsum("bm,imn,bn->bi", x, w, y)
    return out + bias.reshape(1, -1) if bias is not None else out


def _btp_grad(attrs, x, y, w, bias, dout):
    dx = np.einsum("bi,imn,bn->bm", dout, w, y)
    dy = np.einsum("bi,imn,bm->bn", dout, w, x)
    dw = np.einsum("bi,bm,bn->imn", dout, x, y)
    db = None if bias is None else dout.sum(0).reshape(bias.shape)
    return dx, dy, dw, db


register_simple(
    "bilinear_tensor_product", [In("X", "[B, M]"), In("Y", "[B, N]"),
                                In("Weight", "[size, M, N]"),
                                In("Bias", "[1, size]", dispensable=True)],
    [Out("Out", "[B, size]")], [], _infer_btp, _btp, backward=_btp_grad,
    wrt=["X", "Y", "Weight", "Bias"], doc=__doc__)
