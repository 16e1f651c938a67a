"""diag_embed: Out[..., i, i + offset] = Input[..., i] on the plane of dims dim1, dim2.

Input [..., N] gives Out of rank + 1 whose dims dim1 and dim2 (of Out) have size
N + |offset|, zero off that diagonal; offset > 0 is above the main diagonal, < 0 below.
As in Paddle 1.8, the op has no gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import ALL_DTYPES, Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _dims(attrs, rank_out: int) -> tuple[int, int]:
    return attrs["dim1"] % rank_out, attrs["dim2"] % rank_out


def _infer(ctx):
    shape = list(ctx.input_shape("Input"))
    ctx.enforce(len(shape) >= 1, "Input must have at least one dim")
    rank_out = len(shape) + 1
    dim1, dim2 = ctx.attr("dim1"), ctx.attr("dim2")
    ctx.enforce(-rank_out <= dim1 < rank_out and -rank_out <= dim2 < rank_out, lambda:
                f"dim1 {dim1} and dim2 {dim2} must lie in [{-rank_out}, {rank_out - 1}] for "
                f"Input of rank {len(shape)}")
    d1, d2 = _dims({"dim1": dim1, "dim2": dim2}, rank_out)
    ctx.enforce(d1 != d2, lambda: f"dim1 and dim2 must name two dims, got {dim1} and {dim2}")
    side = shape[-1] + abs(ctx.attr("offset")) if shape[-1] >= 0 else -1
    out = shape[:-1]
    for d in sorted((d1, d2)):
        out.insert(d, side)
    ctx.set_output("Out", out, ctx.input_dtype("Input"))


def _diag_embed(attrs, x):
    offset = attrs["offset"]
    n = x.shape[-1]
    side = n + abs(offset)
    planes = np.zeros(x.shape[:-1] + (side, side), x.dtype)
    i = np.arange(n)
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    planes[..., rows, cols] = x
    d1, d2 = _dims(attrs, x.ndim + 1)
    return np.moveaxis(planes, (-2, -1), (d1, d2))


register_simple(
    "diag_embed", [In("Input", "[..., N]")], [Out("Out", "[..., N + |offset|, N + |offset|]")],
    [Attr("offset", "int", 0, "the diagonal: 0 main, > 0 above, < 0 below"),
     Attr("dim1", "int", -2, "Out's dim of the diagonal's rows"),
     Attr("dim2", "int", -1, "Out's dim of its columns")],
    _infer, _diag_embed, doc=__doc__, dtypes=ALL_DTYPES)
