"""median (+ _grad): the median of x over `axis`, as Paddle 3's old-IR `median` op
(what paddle.median runs) computes it, and where it was found.

    out     = per row (the entries over `axis`, every dim when axis is empty):
              odd length n:   the ((n - 1) / 2)-th smallest
              even length n:  mode "avg": the mean of the (n/2 - 1)-th and (n/2)-th
                              smallest, computed in x's dtype (integers truncate, as C++
                              divides); mode "min": the (n/2 - 1)-th smallest
              a row holding NaN: NaN
    medians = int64 positions of the median entries within the row (the reduced dims
              moved last, in ascending order, and flattened): mode "avg" adds a last
              dim of 2 (lower, upper; the same position twice for odd n), mode "min"
              one position
    dx      = dout / 2 added at both avg positions (dout at the one min position)

out drops the reduced dims (kept as 1 with keepdim). AxisTensor (an int tensor) or
AxisTensorList ([1] int tensors) give the axes at run time instead of the attribute.

Which entry among equal values is reported is Paddle's: its CPU kernel takes the
n/2 + 1 smallest with its top_k (std::nth_element, then std::sort of all but the last,
or std::partial_sort when (n/2 + 1) * 64 < n), comparing NaN after every number, and
ops/tensor/stl_select.py runs those libstdc++ algorithms. For a row holding NaN Paddle
leaves (part of) medians unwritten; paddle-ir reports the first NaN's position there.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, NUMERIC, Attr, In, Out, register_op
from paddle_ir.ops.tensor.kthvalue import nan_last_less
from paddle_ir.ops.tensor.stl_select import nth_element, partial_sort, sort
from paddle_ir.ops.tensor_attrs import (
    TensorAttr,
    overridden,
    tensor_attr_inputs,
    with_tensor_attrs,
)

MEDIAN_TENSOR_ATTRS = (TensorAttr("axis", "ints", whole="AxisTensor", parts="AxisTensorList"),)
_MODES = ("avg", "min")
_ATTRS = [Attr("axis", "longs", [], "the reduced dims (empty: all)"),
          Attr("keepdim", "bool", False, "keep the reduced dims as 1"),
          Attr("mode", "string", "avg", "avg: mean of the two middle entries; min: the lower")]

median = register_op(
    "median",
    inputs=[In("x")] + tensor_attr_inputs(MEDIAN_TENSOR_ATTRS),
    outputs=[Out("out", "x's dtype, the reduced dims dropped (1 with keepdim)"),
             Out("medians", "int64 positions within each row ([..., 2] in mode avg)")],
    attrs=_ATTRS,
    key_inputs=["x"],
    doc=__doc__,
)


def _axes(axis, rank: int) -> list[int]:
    """The reduced dims, ascending (every dim when `axis` is empty)."""
    return sorted({int(a) % rank for a in axis}) if len(axis) else list(range(rank))


def _reduced(shape, axes, keepdim: bool) -> list:
    return [1 if k in axes else d for k, d in enumerate(shape)
            if keepdim or k not in axes]


@median.infer_shape
def _(ctx):
    x = list(ctx.input_shape("x"))
    mode = ctx.attr("mode")
    ctx.enforce(mode in _MODES, lambda: f"mode must be 'avg' or 'min', got {mode!r}")
    keepdim = ctx.attr("keepdim")
    rank = max(len(x), 1)
    if "axis" in overridden(ctx, MEDIAN_TENSOR_ATTRS):
        # axes known at run time only: their number comes from the tensors' shape
        if ctx.has_input("AxisTensorList"):
            count = len(ctx.input_shapes("AxisTensorList"))
        else:
            given = ctx.input_shape("AxisTensor")
            count = int(np.prod(given)) if all(d >= 0 for d in given) else -1
        ctx.enforce(keepdim or count >= 0,
                    "AxisTensor must have a known size when keepdim is False (it sets "
                    "out's rank)")
        out = [-1] * (len(x) if keepdim else max(len(x) - count, 0))
    else:
        axis = list(ctx.attr("axis"))
        for a in axis:
            ctx.enforce(-rank <= a < rank, lambda: f"axis holds {a}, outside x {shape_str(x)}")
        axes = _axes(axis, rank) if x else []
        out = _reduced(x, axes, keepdim)
    ctx.set_output("out", out, ctx.input_dtype("x"))
    ctx.set_output("medians", out + ([2] if mode == "avg" else []), np.int64)


def _rows(x: np.ndarray, axes: list[int]) -> np.ndarray:
    """x as [rows, n]: the reduced dims moved last (ascending) and flattened."""
    kept = [k for k in range(x.ndim) if k not in axes]
    moved = np.transpose(x, kept + axes)
    return moved.reshape(int(np.prod([x.shape[k] for k in kept])), -1)


def _lower_upper(row: list) -> tuple:
    """The (value, position) pairs of the lower and upper middle entries, as Paddle's
    top_k of the n // 2 + 1 smallest leaves them (NaN after every number)."""
    n = len(row)
    k = n // 2 + 1
    pairs = list(zip(row, range(n), strict=True))
    if k * 64 < n:
        partial_sort(pairs, k, nan_last_less)
    else:
        nth_element(pairs, k - 1, nan_last_less)
        head = pairs[:k - 1]
        sort(head, nan_last_less)
        pairs[:k - 1] = head
    upper = pairs[k - 1]
    return (upper if n % 2 else pairs[k - 2]), upper


def _halve(total: np.ndarray) -> np.ndarray:
    if total.dtype.kind == "f":
        return total / total.dtype.type(2)
    return np.sign(total) * (np.abs(total) // 2)  # C++'s integer division truncates


def median_rows(attrs, x):
    mode = attrs["mode"]
    axes = _axes(attrs["axis"], max(x.ndim, 1)) if x.ndim else []
    rows = _rows(x, axes) if x.ndim else x.reshape(1, 1)
    count = rows.shape[0]
    lower_v, upper_v = np.empty(count, x.dtype), np.empty(count, x.dtype)
    where = np.empty((count, 2), np.int64)
    has_nan = np.isnan(rows).any(axis=1) if x.dtype.kind == "f" else np.zeros(count, bool)
    for r, row in enumerate(rows.tolist()):
        if has_nan[r]:
            first = int(np.flatnonzero(np.isnan(rows[r]))[0])
            lower_v[r] = upper_v[r] = np.nan
            where[r] = first
            continue
        (lower_v[r], where[r, 0]), (upper_v[r], where[r, 1]) = _lower_upper(row)
    if mode == "avg":
        out = _halve(lower_v + upper_v).astype(x.dtype)
        out[has_nan] = np.nan if x.dtype.kind == "f" else 0
    else:
        out = lower_v
    shape = _reduced(list(x.shape), axes, attrs["keepdim"])
    medians = where.reshape(shape + [2]) if mode == "avg" else where[:, 0].reshape(shape)
    return out.reshape(shape), medians


median.kernel(dtypes=NUMERIC)(with_tensor_attrs("median", MEDIAN_TENSOR_ATTRS, 1, median_rows))


@median.grad_maker
def _(g):
    return [g.grad_op("median_grad",
                      inputs={"x": g.input("x"), "medians": g.output("medians"),
                              "out@GRAD": g.output_grad("out"),
                              "AxisTensor": g.input("AxisTensor"),
                              "AxisTensorList": g.input("AxisTensorList")},
                      outputs={"x@GRAD": g.input_grad("x")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


median_grad = register_op(
    "median_grad",
    inputs=[In("x", no_need_buffer=True), In("medians"), In("out@GRAD")]
    + tensor_attr_inputs(MEDIAN_TENSOR_ATTRS),
    outputs=[Out("x@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["out@GRAD"],
    doc="dx = dout / 2 at both avg positions of medians (dout at the min position).",
)


@median_grad.infer_shape
def _(ctx):
    ctx.set_output("x@GRAD", ctx.input_shape("x"), ctx.input_dtype("out@GRAD"))


def median_grad_rows(attrs, x, medians, dout):
    axes = _axes(attrs["axis"], max(x.ndim, 1)) if x.ndim else []
    kept = [k for k in range(x.ndim) if k not in axes]
    rows = np.zeros((int(np.prod([x.shape[k] for k in kept])),
                     int(np.prod([x.shape[k] for k in axes]))), dout.dtype)
    flat = dout.reshape(-1)
    at = medians.reshape(rows.shape[0], -1)
    share = flat / dout.dtype.type(at.shape[1])  # avg: half to each middle entry
    for column in range(at.shape[1]):
        np.add.at(rows, (np.arange(rows.shape[0]), at[:, column]), share)
    moved = rows.reshape([x.shape[k] for k in kept + axes])
    return np.transpose(moved, np.argsort(kept + axes))


median_grad.kernel(dtypes=FLOATS)(with_tensor_attrs("median_grad", MEDIAN_TENSOR_ATTRS, 3,
                                                    median_grad_rows))
