"""Padding ops (+ grads, which slice the padding off again):

    pad               Out = X padded by `paddings` ([before_0, after_0, ...]) with pad_value
    pad_constant_like Out = Y padded at the end of each dim to X's shape with pad_value
    pad2d             NCHW/NHWC X padded by [top, bottom, left, right]; mode constant,
                      reflect or edge; the Paddings input (an int tensor [4]) gives the
                      paddings at run time instead (ops/tensor_attrs.py), through the
                      memory budget

pad3d, Paddle 2.x's, is ops/tensor/pad3d.py.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.context import dims_known
from paddle_ir.ops.registry import NUMERIC, Attr, In, Out
from paddle_ir.ops.simple_op import register_simple
from paddle_ir.ops.tensor_attrs import (
    TensorAttr,
    overridden,
    tensor_attr_inputs,
    with_tensor_attrs,
)

# pad2d's inputs that override attributes at run time.
PAD2D_TENSOR_ATTRS = (TensorAttr("paddings", "ints", whole="Paddings"),)

# -- pad -------------------------------------------------------------------------------------

def _pairs(paddings, rank):
    return [(paddings[2 * i], paddings[2 * i + 1]) for i in range(rank)]


def _infer_pad(ctx):
    shape, pads = ctx.input_shape("X"), ctx.attr("paddings")
    ctx.enforce(len(pads) == 2 * len(shape),
                lambda: f"paddings must hold 2 * rank = {2 * len(shape)} numbers, got {len(pads)}")
    ctx.enforce(min(pads, default=0) >= 0, lambda: f"paddings must be >= 0, got {list(pads)}")
    out = [d + a + b if d >= 0 else -1 for d, (a, b) in zip(shape, _pairs(pads, len(shape)),
                                                         strict=True)]
    ctx.set_output("Out", out, ctx.input_dtype("X"))


def _pad(attrs, x):
    return np.pad(x, _pairs(attrs["paddings"], x.ndim), constant_values=attrs["pad_value"])


def _pad_grad(attrs, x, dout):
    index = tuple(slice(a, a + d) for (a, _), d in zip(_pairs(attrs["paddings"], x.ndim),
                                                       x.shape, strict=True))
    return dout[index].copy()


register_simple(
    "pad", [In("X")], [Out("Out", "X padded")],
    [Attr("paddings", "ints", [], "[before_0, after_0, before_1, after_1, ...]"),
     Attr("pad_value", "float", 0.0, "the value of the new elements")],
    _infer_pad, _pad, backward=_pad_grad, wrt=["X"], doc=__doc__,
    dtypes=NUMERIC + (np.dtype(np.int16),))


def _infer_pad_like(ctx):
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    ctx.enforce(len(x) == len(y) and all(not dims_known(a, b) or a >= b
                                         for a, b in zip(x, y, strict=True)), lambda:
                f"Y must have X's rank and no dim larger than X's, got X {list(x)}, Y {list(y)}")
    ctx.set_output("Out", x, ctx.input_dtype("Y"))


def _pad_like(attrs, x, y):
    return np.pad(y, [(0, a - b) for a, b in zip(x.shape, y.shape, strict=True)],
                  constant_values=attrs["pad_value"])


def _pad_like_grad(attrs, x, y, dout):
    return dout[tuple(slice(0, d) for d in y.shape)].copy()


register_simple(
    "pad_constant_like", [In("X", "gives the shape", ), In("Y", "the tensor padded")],
    [Out("Out", "X's shape")], [Attr("pad_value", "float", 0.0, "the value of new elements")],
    _infer_pad_like, _pad_like, backward=_pad_like_grad, wrt=["Y"], doc=__doc__)


# -- pad2d -----------------------------------------------------------------------------------

_PAD2D_MODES = {"constant": "constant", "reflect": "reflect", "edge": "edge"}


def _hw_axes(fmt: str) -> tuple[int, int]:
    return (2, 3) if fmt == "NCHW" else (1, 2)


def _infer_pad2d(ctx):
    shape, pads = list(ctx.input_shape("X")), ctx.attr("paddings")
    ctx.enforce(len(shape) == 4, lambda: f"X must be 4-D, got shape {shape}")
    if overridden(ctx, PAD2D_TENSOR_ATTRS):  # known at run time only
        h, w = _hw_axes(ctx.attr("data_format"))
        shape[h] = shape[w] = -1
        ctx.set_output("Out", shape, ctx.input_dtype("X"))
        return
    ctx.enforce(len(pads) == 4, lambda: f"paddings must be [top, bottom, left, right], got {pads}")
    ctx.enforce(ctx.attr("mode") in _PAD2D_MODES,
                lambda: f"mode must be constant, reflect or edge, got {ctx.attr('mode')!r}")
    fmt = ctx.attr("data_format")
    ctx.enforce(fmt in ("NCHW", "NHWC"), lambda: f"data_format must be NCHW or NHWC, got {fmt!r}")
    h, w = _hw_axes(fmt)
    for axis, extra in ((h, pads[0] + pads[1]), (w, pads[2] + pads[3])):
        shape[axis] = shape[axis] + extra if shape[axis] >= 0 else -1
    ctx.set_output("Out", shape, ctx.input_dtype("X"))


def _pad2d_width(attrs, ndim=4):
    p = attrs["paddings"]
    h, w = _hw_axes(attrs["data_format"])
    width = [(0, 0)] * ndim
    width[h], width[w] = (p[0], p[1]), (p[2], p[3])
    return width


def _pad2d(attrs, x):
    pads = attrs["paddings"]
    if len(pads) != 4 or min(pads) < 0:
        raise KernelError(f"pad2d: paddings must be 4 numbers >= 0 [top, bottom, left, right], "
                          f"got {pads}")
    width = _pad2d_width(attrs)
    check_allocation("pad2d", [d + a + b for d, (a, b) in zip(x.shape, width, strict=True)],
                     x.dtype, "its paddings")
    mode = attrs["mode"]
    if mode == "constant":
        return np.pad(x, _pad2d_width(attrs), constant_values=attrs["pad_value"])
    return np.pad(x, _pad2d_width(attrs), mode=_PAD2D_MODES[mode])


def _pad2d_grad(attrs, x, dout):
    """The adjoint of the padding map: each output element's dOut goes back to the input
    element it copies (reflect and edge copy some several times)."""
    index = np.arange(x.size).reshape(x.shape)
    source = np.pad(index, _pad2d_width(attrs), mode="constant", constant_values=-1) \
        if attrs["mode"] == "constant" else np.pad(index, _pad2d_width(attrs),
                                                   mode=_PAD2D_MODES[attrs["mode"]])
    keep = source >= 0
    dx = np.bincount(source[keep], weights=dout[keep], minlength=x.size)
    return dx.reshape(x.shape).astype(dout.dtype)


register_simple(
    "pad2d", [In("X", "4-D")] + tensor_attr_inputs(PAD2D_TENSOR_ATTRS),
    [Out("Out", "X padded in H and W")],
    [Attr("paddings", "ints", [0, 0, 0, 0], "[top, bottom, left, right]"),
     Attr("mode", "string", "constant", "constant, reflect or edge"),
     Attr("pad_value", "float", 0.0, "for mode constant"),
     Attr("data_format", "string", "NCHW", "NCHW or NHWC")],
    _infer_pad2d, with_tensor_attrs("pad2d", PAD2D_TENSOR_ATTRS, 1, _pad2d),
    backward=with_tensor_attrs("pad2d_grad", PAD2D_TENSOR_ATTRS, 1, _pad2d_grad), wrt=["X"],
    doc=__doc__)
