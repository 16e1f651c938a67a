"""sequence_reshape (+ _grad): each sequence's rows re-cut to width new_dim
(len * D / new_dim rows); the gradient reshapes dOut back.
"""

from __future__ import annotations

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import NUMERIC, Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import (
    lengths_of,
    lod_error,
    offsets_of,
    require_lod,
)
from paddle_ir.ops.simple_op import register_simple


def _infer_reshape(ctx):
    require_lod(ctx, "X")
    shape = ctx.input_shape("X")
    new_dim = ctx.attr("new_dim")
    ctx.enforce(len(shape) == 2, lambda: f"X must be [N, D], got {list(shape)}")
    ctx.enforce(new_dim >= 1, lambda: f"new_dim must be >= 1, got {new_dim}")
    ctx.set_output("Out", (-1, new_dim), ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", ctx.input_lod_level("X"))


def _reshape(attrs, x: LoDTensor) -> LoDTensor:
    arr, new_dim = x.numpy(), attrs["new_dim"]
    width = arr.shape[1]
    sizes = lengths_of(x.offsets[-1]) * width
    if (sizes % new_dim).any():
        raise lod_error("sequence_reshape",
                        f"every sequence's element count (rows * {width}) must be a multiple "
                        f"of new_dim {new_dim}, got counts {sizes.tolist()}")
    offsets = x.offsets[:-1] + (offsets_of(sizes // new_dim),)
    return LoDTensor.unchecked(arr.reshape(-1, new_dim), offsets)


def _reshape_grad(attrs, x: LoDTensor, dout: LoDTensor) -> LoDTensor:
    return LoDTensor.unchecked(dout.numpy().reshape(x.shape), x.offsets)


register_simple(
    "sequence_reshape", [In("X", "[N, D] with a LoD")], [Out("Out", "[M, new_dim]")],
    [Attr("new_dim", "int", 1, "the new row width")], _infer_reshape, _reshape,
    backward=_reshape_grad, wrt=["X"], dtypes=NUMERIC, lod=True, doc=__doc__)
