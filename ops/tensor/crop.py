"""crop / crop_tensor (+ grads): Out = X[offsets : offsets + shape] (shape -1 keeps the
rest); dX = dOut padded back with zeros.

crop takes the shape from Y when Y is given, and the offsets from the Offsets tensor
when it is given; crop_tensor takes the shape from Shape (an int tensor) or
ShapeTensor (one [1] int tensor per dim) and the offsets from Offsets or OffsetsTensor,
the tensors overriding the attributes at run time (ops/tensor_attrs.py). A box read
from tensors is checked against X's dims when the op runs (so it is never larger than
X).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import dims_known
from paddle_ir.ops.registry import FLOATS, Attr, In, Out
from paddle_ir.ops.simple_op import register_simple
from paddle_ir.ops.tensor_attrs import (
    TensorAttr,
    overridden,
    tensor_attr_inputs,
    with_tensor_attrs,
)

# The inputs that override attributes at run time, per op.
CROP_TENSOR_ATTRS = (TensorAttr("offsets", "ints", whole="Offsets"),)
CROP_TENSOR_TENSOR_ATTRS = (TensorAttr("shape", "ints", whole="Shape", parts="ShapeTensor"),
                            TensorAttr("offsets", "ints", whole="Offsets",
                                       parts="OffsetsTensor"))

_ATTRS = [Attr("offsets", "ints", [], "where the box starts, per dim (default 0s)"),
          Attr("shape", "ints", [], "the box's size per dim; -1: to the end")]


def _crop_box(ctx, x_shape, table):
    unknown = overridden(ctx, table)
    rank = len(x_shape)
    if "shape" in unknown:
        return [-1] * rank
    offsets, shape = list(ctx.attr("offsets")), list(ctx.attr("shape"))
    if ctx.has_input("Y"):
        shape = list(ctx.input_shape("Y"))
    ctx.enforce(len(shape) == rank, lambda: f"shape must have X's rank {rank}, got {shape}")
    if "offsets" in unknown:
        return [s if s >= 0 else -1 for s in shape]
    offsets = offsets or [0] * rank
    ctx.enforce(len(offsets) == rank,
                lambda: f"offsets and shape must have X's rank {rank}, got offsets {offsets} and "
                f"shape {shape}")
    out = []
    for d, o, s in zip(x_shape, offsets, shape, strict=True):
        ctx.enforce(o >= 0 and s >= -1,
                    lambda: f"offsets must be >= 0 and shape's dims >= 0 (or -1: "
                                        f"to the end), got offsets {offsets} and shape {shape}")
        size = (d - o if d >= 0 else -1) if s == -1 else s
        ctx.enforce(not dims_known(d, size) or o + size <= d,
                    lambda: f"the crop [offset {o}, size {size}] exceeds X's dim {d}")
        out.append(size)
    return out


def _crop_slices(op_type, attrs, x, y):
    shape = list(y.shape) if y is not None else list(attrs["shape"])
    offsets = list(attrs["offsets"]) or [0] * x.ndim
    if len(shape) != x.ndim or len(offsets) != x.ndim:
        raise KernelError(f"{op_type}: offsets {offsets} and shape {shape} must have X's rank "
                          f"{x.ndim}")
    box = []
    for o, s, d in zip(offsets, shape, x.shape, strict=True):
        size = d - o if s == -1 else s
        if o < 0 or size < 0 or o + size > d:
            raise KernelError(f"{op_type}: the crop [offsets {offsets}, shape {shape}] does not "
                              f"fit X {list(x.shape)}")
        box.append(slice(o, o + size))
    return tuple(box)


def _register(op_type: str, table, with_y: bool) -> None:
    y_slot = [In("Y", "its shape is the crop's (optional)", dispensable=True)] if with_y else []
    n_inputs = 1 + len(y_slot)

    def forward(attrs, x, y=None):
        return x[_crop_slices(op_type, attrs, x, y)].copy()

    def backward(attrs, x, *rest):
        y, dout = (rest if with_y else (None,) + rest)
        dx = np.zeros(x.shape, dtype=dout.dtype)
        dx[_crop_slices(op_type, attrs, x, y)] = dout
        return dx

    register_simple(
        op_type, [In("X")] + y_slot + tensor_attr_inputs(table),
        [Out("Out", "the cropped box")], _ATTRS,
        lambda ctx: ctx.set_output("Out", _crop_box(ctx, ctx.input_shape("X"), table),
                                   ctx.input_dtype("X")),
        with_tensor_attrs(op_type, table, n_inputs, forward),
        backward=with_tensor_attrs(op_type + "_grad", table, n_inputs, backward),
        wrt=["X"], dtypes=FLOATS, doc=__doc__)


_register("crop", CROP_TENSOR_ATTRS, with_y=True)
_register("crop_tensor", CROP_TENSOR_TENSOR_ATTRS, with_y=False)
