"""kthvalue (+ _grad): the k-th smallest entry of X along `axis`, and where it is.

    Out     = the k-th smallest value of each row along axis (k counts from 1)
    Indices = its position along axis (int64)
    dX      = dOut put back at Indices, zeros elsewhere

Out and Indices drop `axis` (kept as 1 with keepdim). The entry is picked as
Paddle's CPU kernel picks it, with libstdc++'s std::partial_sort when k * 64 < the
row's length, else std::nth_element (ops/tensor/stl_select.py), so among equal
values the index is Paddle's; NaN counts as the largest value.

`register_row_pick` builds ops of this shape (mode uses it too).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, NUMERIC, Attr, In, Out, register_op
from paddle_ir.ops.tensor.stl_select import nth_element, partial_sort


def nan_last_less(a, b) -> bool:
    """Paddle's ascending comparison of (value, index) pairs: NaN after every number."""
    return (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def register_row_pick(op_type: str, extra_attrs: list, pick: Callable, check: Callable,
                      doc: str):
    """An op X -> (Out, Indices) choosing one entry per row along `axis` with
    `pick(row pairs, attrs) -> (value, index)`, and its grad op (dOut to Indices)."""
    attrs = extra_attrs + [Attr("axis", "int", -1, "the dim searched (negative: from the end)"),
                           Attr("keepdim", "bool", False, "keep axis as a dim of size 1")]
    op = register_op(op_type, inputs=[In("X")],
                     outputs=[Out("Out", "X without axis (1 with keepdim)"),
                              Out("Indices", "int64 positions along axis")],
                     attrs=attrs, doc=doc)

    @op.infer_shape
    def _(ctx):
        x = list(ctx.input_shape("X"))
        rank = max(len(x), 1)
        axis = ctx.attr("axis")
        ctx.enforce(-rank <= axis < rank, lambda: f"axis must be in [{-rank}, {rank}) for X "
                                          f"{shape_str(x)}, got {axis}")
        check(ctx, x[axis % rank] if x else 1)
        out = _reduced(x, axis % rank, ctx.attr("keepdim")) if x else []
        ctx.set_output("Out", out, ctx.input_dtype("X"))
        ctx.set_output("Indices", out, np.int64)

    @op.kernel(dtypes=NUMERIC)
    def kernel(attrs, x):
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        axis = attrs["axis"] % x.ndim
        rows = np.moveaxis(x, axis, -1)
        flat = rows.reshape(-1, rows.shape[-1])
        values = np.empty(flat.shape[0], x.dtype)
        index = np.empty(flat.shape[0], np.int64)
        for r, row in enumerate(flat.tolist()):
            values[r], index[r] = pick(list(zip(row, range(len(row)), strict=True)), attrs)
        shape = _reduced(list(x.shape), axis, attrs["keepdim"])
        return values.reshape(shape), index.reshape(shape)

    @op.grad_maker
    def _(g):
        return [g.grad_op(op_type + "_grad",
                          inputs={"X": g.input("X"), "Indices": g.output("Indices"),
                                  "Out@GRAD": g.output_grad("Out")},
                          outputs={"X@GRAD": g.input_grad("X")},
                          attrs={"axis": g.attr("axis"), "keepdim": g.attr("keepdim")})]

    grad = register_op(op_type + "_grad",
                       inputs=[In("X", no_need_buffer=True), In("Indices"), In("Out@GRAD")],
                       outputs=[Out("X@GRAD", dispensable=True)],
                       attrs=attrs[-2:], key_inputs=["Out@GRAD"],
                       doc="dX = dOut put back at Indices along axis, zeros elsewhere.")

    @grad.infer_shape
    def _(ctx):
        ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))

    @grad.kernel(dtypes=FLOATS)
    def grad_kernel(attrs, x, indices, dout):
        dx = np.zeros(x.shape, dout.dtype)
        if x.ndim == 0:
            return dout.reshape(()).copy()
        axis = attrs["axis"] % x.ndim
        np.put_along_axis(dx, np.expand_dims(indices, axis) if not attrs["keepdim"] else indices,
                          dout if attrs["keepdim"] else np.expand_dims(dout, axis), axis=axis)
        return dx

    return op


def _reduced(shape: list, axis: int, keepdim: bool) -> list:
    return shape[:axis] + ([1] if keepdim else []) + shape[axis + 1:]


def _kth(pairs, attrs):
    k = attrs["k"]
    if k * 64 < len(pairs):
        partial_sort(pairs, k, nan_last_less)
    else:
        nth_element(pairs, k - 1, nan_last_less)
    return pairs[k - 1]


def _check_k(ctx, n):
    k = ctx.attr("k")
    ctx.enforce(k >= 1 and (n < 0 or k <= n),
                lambda: f"k must be in [1, {n}] (the length along axis), got {k}")


kthvalue = register_row_pick("kthvalue", [Attr("k", "int", 1, "which smallest, from 1")],
                             _kth, _check_k, __doc__)
