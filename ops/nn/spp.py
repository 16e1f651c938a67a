"""spp (+ _grad): spatial pyramid pooling of NCHW X.

For each level p in 0 .. pyramid_height-1, with b = 2^p bins per side:

    kernel  k = (ceil(H / b), ceil(W / b)),  stride = k,
    padding ((k_h * b - H + 1) // 2, (k_w * b - W + 1) // 2) on each side
    level_p = pool(X) (max, or avg over the cells inside X), flattened to [N, C * b * b]
    Out     = concat(level_0, level_1, ...) along axis 1: [N, C * sum_p 4^p]

dX adds each level's pooling gradient (max: to the first maximum of each window).

A window can lie wholly in the padding (H = 5 at 4 bins: kernel 2, padding 2): as in
Paddle, max pooling gives -FLT_MAX there and avg pooling 0 / 0 = NaN.
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.nn.pool import window_pool, window_pool_grad
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _levels(attrs, h: int, w: int):
    """(ksize, pads, out) of each pyramid level."""
    for p in range(attrs["pyramid_height"]):
        bins = 2 ** p
        kh, kw = math.ceil(h / bins), math.ceil(w / bins)
        ph, pw = (kh * bins - h + 1) // 2, (kw * bins - w + 1) // 2
        out = ((h + 2 * ph - kh) // kh + 1, (w + 2 * pw - kw) // kw + 1)
        yield (kh, kw), [(ph, ph), (pw, pw)], out


def _infer(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 4, lambda: f"X must be [N, C, H, W], got {shape_str(x)}")
    ctx.enforce(ctx.attr("pyramid_height") >= 1,
                lambda: f"pyramid_height must be >= 1, got {ctx.attr('pyramid_height')}")
    ctx.enforce(ctx.attr("pooling_type") in ("max", "avg"),
                lambda: f"pooling_type must be 'max' or 'avg', got {ctx.attr('pooling_type')!r}")
    cells = sum(4 ** p for p in range(ctx.attr("pyramid_height")))
    ctx.set_output("Out", (x[0], -1 if x[1] < 0 else x[1] * cells), ctx.input_dtype("X"))


def _forward(attrs, x):
    n, _, h, w = x.shape
    with np.errstate(invalid="ignore", divide="ignore"):  # empty windows (see above)
        parts = [window_pool(x, attrs["pooling_type"], k, k, pads, out, True).reshape(n, -1)
                 for k, pads, out in _levels(attrs, h, w)]
    out = np.concatenate(parts, axis=1)
    out[np.isneginf(out)] = np.finfo(np.float32).min  # Paddle's initial max, -FLT_MAX
    return out


def _backward(attrs, x, dout):
    n, c, h, w = x.shape
    dx, at = np.zeros_like(x), 0
    for k, pads, out in _levels(attrs, h, w):
        size = c * out[0] * out[1]
        y = window_pool(x, attrs["pooling_type"], k, k, pads, out, True)
        dy = dout[:, at:at + size].reshape(n, c, *out)
        dx += window_pool_grad(x, y, dy, attrs["pooling_type"], k, k, pads, out, True)
        at += size
    return dx


register_simple("spp", [In("X", "[N, C, H, W]")], [Out("Out", "[N, C * sum_p 4^p]")],
                [Attr("pyramid_height", "int", 1, "the number of levels"),
                 Attr("pooling_type", "string", "max", "max or avg")],
                _infer, _forward, backward=_backward, wrt=["X"], doc=__doc__)
