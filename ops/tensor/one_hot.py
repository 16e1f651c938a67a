"""one_hot (Fluid 1.x) and one_hot_v2 (Fluid 1.7's `fluid.one_hot`): integer ids -> 0/1 rows.

    one_hot:     X [..., 1] of ids -> Out [..., depth]      (the trailing 1 is replaced)
    one_hot_v2:  X [...]    of ids -> Out [..., depth]      (a dim is appended)

    Out[..., j] = 1 if X[...] == j else 0      (dtype attr, float32 by default)

An id outside [0, depth) is an error unless `allow_out_of_range`, which gives
an all-zero row, as in Paddle. Out keeps X's LoD; no gradient flows (ids are
integers). depth_tensor, a one-element int tensor, gives depth at run time instead of
the attribute (ops/tensor_attrs.py); Out's size then goes through the memory budget.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import DataType, to_numpy_dtype
from paddle_ir.core.errors import KernelError, OpLocation
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import INTS, Attr, In, Out, register_op
from paddle_ir.ops.tensor_attrs import (
    TensorAttr,
    overridden,
    tensor_attr_inputs,
    with_tensor_attrs,
)

# The inputs that override attributes at run time.
TENSOR_ATTRS = (TensorAttr("depth", "int", whole="depth_tensor"),)

_ATTRS = [
    Attr("depth", "int", -1, "the number of classes (the width of Out)"),
    Attr("dtype", "int", DataType.FP32, "the DataType of Out"),
    Attr("allow_out_of_range", "bool", False, "an id outside [0, depth) gives a zero row"),
]


def _encode(op_type: str, attrs, ids: np.ndarray) -> np.ndarray:
    depth = attrs["depth"]
    if depth <= 0:
        raise KernelError(f"{op_type}: depth must be positive, got {depth}",
                          op=OpLocation(op_type=op_type))
    check_allocation(op_type, ids.shape + (depth,), to_numpy_dtype(attrs["dtype"]),
                     "its depth")
    if ids.size and not attrs["allow_out_of_range"]:
        lo, hi = int(ids.min()), int(ids.max())
        if lo < 0 or hi >= depth:
            raise KernelError(f"X holds id {lo if lo < 0 else hi}, outside [0, {depth}) "
                              f"(depth {depth})",
                              op=OpLocation(op_type=op_type),
                              hint="set allow_out_of_range=True for all-zero rows instead")
    # Compare against 0..depth-1 by broadcasting: out-of-range ids match no column.
    hits = ids[..., None] == np.arange(depth, dtype=ids.dtype)
    return hits.astype(to_numpy_dtype(attrs["dtype"]))


def _check(ctx) -> int:
    """Out's last dim: the depth attribute (checked), or -1 when depth_tensor gives it."""
    ctx.enforce(ctx.input_dtype("X") in INTS,
                lambda: f"X must hold integer ids (int32 or int64), got {ctx.input_dtype('X')}")
    if overridden(ctx, TENSOR_ATTRS):
        return -1
    depth = ctx.attr("depth")
    ctx.enforce(depth > 0, lambda: f"depth must be positive, got {depth}")
    return depth


for _op_type, _v2 in (("one_hot", False), ("one_hot_v2", True)):
    _op = register_op(
        _op_type,
        inputs=[In("X", "integer ids" + ("" if _v2 else ", [..., 1]"))]
        + tensor_attr_inputs(TENSOR_ATTRS),
        outputs=[Out("Out", "[..., depth], of the dtype attribute")],
        attrs=_ATTRS,
        doc=__doc__,
    )

    def _infer(ctx, v2=_v2):
        depth = _check(ctx)
        shape = list(ctx.input_shape("X"))
        if not v2:
            ctx.enforce(len(shape) >= 1 and shape[-1] in (1, -1),
                        lambda: f"X of one_hot must end in a dim of 1, got {shape_str(shape)}",
                        hint="use one_hot_v2 (fluid.one_hot) for ids of any shape")
            shape = shape[:-1]
        ctx.set_output("Out", shape + [depth], to_numpy_dtype(ctx.attr("dtype")))
        ctx.share_lod("X", "Out")

    _op.infer_shape(_infer)

    def _kernel(attrs, x, op_type=_op_type, v2=_v2):
        return _encode(op_type, attrs, x if v2 else x[..., 0])

    _kernel.__name__ = _kernel.__qualname__ = f"{_op_type}_dense"
    _op.kernel(dtypes=INTS)(with_tensor_attrs(_op_type, TENSOR_ATTRS, 1, _kernel))
    _op.grad_maker(lambda g: [])
