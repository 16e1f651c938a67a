"""unpool (+ _grad): max unpooling, the inverse of max_pool2d_with_index.

X and Indices are [N, C, H, W]; Indices hold flat positions in the output plane
(as max_pool2d_with_index's Mask does). The output plane is
output_size when given, else ((H - 1) * stride_h - 2 * pad_h + ksize_h,
(W - 1) * stride_w - 2 * pad_w + ksize_w):

    Out[n, c].flat[Indices[n, c, i, j]] = X[n, c, i, j]     (0 elsewhere)
    dX[n, c, i, j] = dOut[n, c].flat[Indices[n, c, i, j]]

An index outside the output plane is a KernelError naming it.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _out_hw(get, h: int, w: int) -> tuple[int, int]:
    size = list(get("output_size"))
    if len(size) >= 2:
        return int(size[-2]), int(size[-1])
    (kh, kw), (sh, sw), (ph, pw) = get("ksize"), get("strides"), get("paddings")[:2]
    return ((h - 1) * sh - 2 * ph + kh if h >= 0 else -1,
            (w - 1) * sw - 2 * pw + kw if w >= 0 else -1)


def _infer(ctx):
    x, idx = ctx.input_shape("X"), ctx.input_shape("Indices")
    ctx.enforce(len(x) == 4 and len(idx) == 4, lambda: f"X and Indices must be [N, C, H, W], got "
                                               f"{shape_str(x)} and {shape_str(idx)}")
    ctx.enforce(ctx.attr("unpooling_type") == "max",
                lambda: f"unpooling_type must be 'max', got {ctx.attr('unpooling_type')!r}")
    ctx.enforce(ctx.attr("data_format") == "NCHW",
                lambda: f"data_format must be NCHW, got {ctx.attr('data_format')!r}")
    ctx.enforce(len(ctx.attr("ksize")) == 2 and len(ctx.attr("strides")) == 2,
                "ksize and strides must hold 2 values")
    ctx.enforce(ctx.input_dtype("Indices").kind in "iu",
                lambda: f"Indices must be integers, got {ctx.input_dtype('Indices')}")
    oh, ow = _out_hw(ctx.attr, x[2], x[3])
    ctx.set_output("Out", (x[0], x[1], oh, ow), ctx.input_dtype("X"))


def _flat(attrs, x, indices):
    n, c, h, w = x.shape
    oh, ow = _out_hw(attrs.__getitem__, h, w)
    flat = indices.reshape(n, c, -1).astype(np.int64)
    bad = (flat < 0) | (flat >= oh * ow)
    if bad.any():
        first = int(np.flatnonzero(bad.reshape(-1))[0])
        raise KernelError(f"unpool: Indices[{first}] = {int(flat.reshape(-1)[first])} is "
                          f"outside the {oh} x {ow} output plane")
    return flat, oh, ow


def _forward(attrs, x, indices):
    flat, oh, ow = _flat(attrs, x, indices)
    out = np.zeros((x.shape[0], x.shape[1], oh * ow), x.dtype)
    np.put_along_axis(out, flat, x.reshape(flat.shape), axis=2)
    return out.reshape(x.shape[0], x.shape[1], oh, ow)


def _backward(attrs, x, indices, dout):
    flat, _, _ = _flat(attrs, x, indices)
    planes = dout.reshape(dout.shape[0], dout.shape[1], -1)
    return np.take_along_axis(planes, flat, axis=2).reshape(x.shape)


register_simple(
    "unpool", [In("X", "[N, C, H, W] pooled values"),
               In("Indices", "[N, C, H, W] flat positions in the output plane")],
    [Out("Out", "[N, C, out_h, out_w]")],
    [Attr("ksize", "ints", [2, 2], "the pooling window"),
     Attr("strides", "ints", [1, 1], "the pooling strides"),
     Attr("paddings", "ints", [0, 0], "the pooling paddings"),
     Attr("unpooling_type", "string", "max", "max (the only kind)"),
     Attr("output_size", "ints", [], "[out_h, out_w], overriding the formula"),
     Attr("data_format", "string", "NCHW", "NCHW (the only layout)")],
    _infer, _forward, backward=_backward, wrt=["X"], doc=__doc__)
