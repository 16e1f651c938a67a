"""Sorting and deduplicating ops:

    argsort      Out = X sorted along `axis`, Indices = the permutation (stable); gradient:
                 dOut put back through Indices
    unique       Out = X's distinct values in order of first appearance, Index = each X
                 element's position in Out (unique_with_counts adds Count); no gradient
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import INTS, NUMERIC, Attr, In, Out
from paddle_ir.ops.simple_op import register_simple

# -- argsort ---------------------------------------------------------------------------------

def _infer_argsort(ctx):
    rank, axis = len(ctx.input_shape("X")), ctx.attr("axis")
    ctx.enforce(-rank <= axis < rank, lambda: f"axis {axis} is out of range for rank {rank}")
    same_as_input(ctx)
    ctx.set_output("Indices", ctx.input_shape("X"), np.int64)


def _argsort(attrs, x):
    axis = attrs["axis"]
    idx = np.argsort(-x if attrs["descending"] else x, axis=axis, kind="stable")
    return np.take_along_axis(x, idx, axis), idx.astype(np.int64)


def _argsort_grad(attrs, x, indices, dout):
    dx = np.zeros_like(dout)
    np.put_along_axis(dx, indices, dout, attrs["axis"])
    return dx


register_simple(
    "argsort", [In("X")], [Out("Out", "X sorted along axis"), Out("Indices", "int64")],
    [Attr("axis", "int", -1, "the axis to sort"),
     Attr("descending", "bool", False, "largest first")],
    _infer_argsort, _argsort, backward=_argsort_grad, wrt=["X"], keep=["Indices"],
    dtypes=NUMERIC + (np.dtype(np.uint8), np.dtype(np.int16)), doc=__doc__)


# -- unique / unique_with_counts -------------------------------------------------------------

def _unique_parts(x):
    flat = np.asarray(x).reshape(-1)
    values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                               return_counts=True)
    order = np.argsort(first, kind="stable")  # first-appearance order, as Paddle
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return values[order], rank[inverse.reshape(-1)], counts[order]


def _infer_unique(ctx, with_counts: bool):
    shape = ctx.input_shape("X")
    ctx.enforce(len(shape) == 1, lambda: f"X must be 1-D, got shape {list(shape)}")
    index_dtype = to_numpy_dtype(ctx.attr("dtype"))
    ctx.enforce(index_dtype in INTS, lambda: f"dtype must be int32 or int64, got {index_dtype}")
    ctx.set_output("Out", (-1,), ctx.input_dtype("X"))
    ctx.set_output("Index", shape, index_dtype)
    if with_counts:
        ctx.set_output("Count", (-1,), index_dtype)


_INDEX_DTYPE = Attr("dtype", "int", 2, "the DataType of Index (and Count): 2 int32, 3 int64")

register_simple(
    "unique", [In("X", "1-D")], [Out("Out", "distinct values"), Out("Index", "positions")],
    [_INDEX_DTYPE], lambda ctx: _infer_unique(ctx, False),
    lambda attrs, x: (lambda v, i, c: (v, i.astype(to_numpy_dtype(attrs["dtype"]))))(
        *_unique_parts(x)), dtypes=NUMERIC, doc=__doc__)

register_simple(
    "unique_with_counts", [In("X", "1-D")],
    [Out("Out", "distinct values"), Out("Index", "positions"), Out("Count", "occurrences")],
    [_INDEX_DTYPE], lambda ctx: _infer_unique(ctx, True),
    lambda attrs, x: (lambda v, i, c: (v, i.astype(to_numpy_dtype(attrs["dtype"])),
                                       c.astype(to_numpy_dtype(attrs["dtype"]))))(
        *_unique_parts(x)), dtypes=NUMERIC, doc=__doc__)
