"""crop / crop_tensor (+ grads): Out = X[offsets : offsets + shape] (shape -1 keeps the
rest; Y, when given, gives the shape); dX = dOut padded back with zeros.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import dims_known
from paddle_ir.ops.registry import FLOATS, Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _crop_box(ctx, x_shape):
    offsets, shape = list(ctx.attr("offsets")), list(ctx.attr("shape"))
    rank = len(x_shape)
    if ctx.has_input("Y"):
        shape = list(ctx.input_shape("Y"))
    offsets = offsets or [0] * rank
    ctx.enforce(len(offsets) == rank and len(shape) == rank,
                f"offsets and shape must have X's rank {rank}, got offsets {offsets} and "
                f"shape {shape}")
    out = []
    for d, o, s in zip(x_shape, offsets, shape, strict=True):
        ctx.enforce(o >= 0 and s >= -1, f"offsets must be >= 0 and shape's dims >= 0 (or -1: "
                                        f"to the end), got offsets {offsets} and shape {shape}")
        size = (d - o if d >= 0 else -1) if s == -1 else s
        ctx.enforce(not dims_known(d, size) or o + size <= d,
                    f"the crop [offset {o}, size {size}] exceeds X's dim {d}")
        out.append(size)
    return out


def _infer_crop(ctx):
    ctx.set_output("Out", _crop_box(ctx, ctx.input_shape("X")), ctx.input_dtype("X"))


def _crop_slices(attrs, x, y):
    shape = list(y.shape) if y is not None else list(attrs["shape"])
    offsets = list(attrs["offsets"]) or [0] * x.ndim
    return tuple(slice(o, d if s == -1 else o + s)
                 for o, s, d in zip(offsets, shape, x.shape, strict=True))


def _crop_grad(attrs, x, y, dout):
    dx = np.zeros(x.shape, dtype=dout.dtype)
    dx[_crop_slices(attrs, x, y)] = dout
    return dx


for _name in ("crop", "crop_tensor"):
    register_simple(
        _name, [In("X"), In("Y", "its shape is the crop's (optional)", dispensable=True)],
        [Out("Out", "the cropped box")],
        [Attr("offsets", "ints", [], "where the box starts, per dim (default 0s)"),
         Attr("shape", "ints", [], "the box's size per dim; -1: to the end")],
        _infer_crop, lambda attrs, x, y: x[_crop_slices(attrs, x, y)].copy(),
        backward=_crop_grad, wrt=["X"], dtypes=FLOATS, doc=__doc__)
