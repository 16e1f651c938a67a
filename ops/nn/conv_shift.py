"""conv_shift (+ _grad): circular convolution of each row of X with the row of Y (NTM's
shift weighting).

X is [B, M], Y is [B, N] with N odd and N <= M; with h = (N - 1) / 2:

    Out[b, i] = sum_{j=-h}^{h} X[b, (i + j) mod M] * Y[b, j + h]
    dX[b, (i + j) mod M] += dOut[b, i] * Y[b, j + h]
    dY[b, j + h]         += dOut[b, i] * X[b, (i + j) mod M]
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import In, Out
from paddle_ir.ops.simple_op import register_simple


def _infer(ctx):
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    ctx.enforce(len(x) == 2 and len(y) == 2, lambda: f"X and Y must be 2-D, got {shape_str(x)} and "
                                             f"{shape_str(y)}")
    ctx.enforce(x[0] < 0 or y[0] < 0 or x[0] == y[0],
                lambda: f"X and Y must have the same rows, got {shape_str(x)} and {shape_str(y)}")
    ctx.enforce(y[1] < 0 or y[1] % 2 == 1, lambda: f"Y's width must be odd, got {y[1]}")
    ctx.enforce(x[1] < 0 or y[1] < 0 or y[1] <= x[1],
                lambda: f"Y's width {y[1]} must not exceed X's {x[1]}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))


def _shifted(m: int, n: int) -> np.ndarray:
    """[M, N] columns of X read by output i and tap j: (i + j - h) mod M."""
    return (np.arange(m)[:, None] + np.arange(n)[None, :] - (n - 1) // 2) % m


def _forward(attrs, x, y):
    cols = _shifted(x.shape[1], y.shape[1])
    return np.einsum("bij,bj->bi", x[:, cols], y)


def _backward(attrs, x, y, dout):
    cols = _shifted(x.shape[1], y.shape[1])
    dx = np.zeros_like(x)
    contrib = dout[:, :, None] * y[:, None, :]  # [B, M, N]
    for j in range(y.shape[1]):
        np.add.at(dx, (slice(None), cols[:, j]), contrib[:, :, j])
    dy = np.einsum("bi,bij->bj", dout, x[:, cols])
    return dx, dy


register_simple("conv_shift", [In("X", "[B, M]"), In("Y", "[B, N], N odd, N <= M")],
                [Out("Out", "[B, M]")], [], _infer, _forward, backward=_backward,
                wrt=["X", "Y"], doc=__doc__)
