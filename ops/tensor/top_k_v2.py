"""top_k_v2 (+ _grad): the k largest (or smallest) entries of X along `axis`.

    Indices = the positions of the k largest values along axis (int64), best first
    Out     = take_along_axis(X, Indices, axis)
    dX      = dOut scattered back to Indices (zeros elsewhere)

Ties keep the lower index first. With sorted=False the k entries come in the order
Paddle's CPU kernel leaves them: it selects with std::partial_sort when k * 64 < the
row's length (sorted anyway) and else with std::nth_element at k - 1 (unordered), and
ops/tensor/stl_select.py runs those same libstdc++ algorithms, so the order (ties
and NaNs included) is Paddle's. The K input, when bound, overrides the attribute.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, NUMERIC, Attr, In, Out, register_op
from paddle_ir.ops.tensor.stl_select import nth_element, partial_sort

top_k_v2 = register_op(
    "top_k_v2",
    inputs=[In("X"), In("K", "an int tensor holding k, overrides the attribute",
                        dispensable=True)],
    outputs=[Out("Out", "X's shape with k along axis"),
             Out("Indices", "int64, the positions along axis")],
    attrs=[Attr("k", "int", 1, "how many entries to keep"),
           Attr("axis", "int", -1, "the dim searched (negative counts from the end)"),
           Attr("largest", "bool", True, "the largest (else the smallest) entries"),
           Attr("sorted", "bool", True, "return them in order")],
    doc=__doc__,
)


@top_k_v2.infer_shape
def _(ctx):
    x = list(ctx.input_shape("X"))
    rank = max(len(x), 1)
    axis = ctx.attr("axis")
    ctx.enforce(-rank <= axis < rank, lambda: f"axis must be in [{-rank}, {rank}), got {axis}")
    out = list(x)
    if x:
        k = -1 if ctx.has_input("K") else ctx.attr("k")
        if k >= 0:
            ctx.enforce(k >= 1 and (x[axis] < 0 or k <= x[axis]),
                        lambda: f"k must be in [1, X.shape[{axis}]] for X {shape_str(x)}, got {k}")
        out[axis] = k
    ctx.set_output("Out", out, ctx.input_dtype("X"))
    ctx.set_output("Indices", out, np.int64)


def top_k(x: np.ndarray, k: int, axis: int, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    n = x.shape[axis]
    if not 1 <= k <= n:
        raise ValueError(f"top_k_v2: k must be in [1, {n}] (X.shape[{axis}]), got {k}")
    # A stable sort of the negated values keeps ties in index order for `largest` too.
    keys = -x if largest and x.dtype.kind != "b" else x
    order = np.argsort(keys, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis).astype(np.int64)
    return np.take_along_axis(x, idx, axis=axis), idx


def _paddle_less(largest: bool):
    """Paddle's comparison of (value, index) pairs: NaN first when largest, last else."""
    if largest:
        return lambda a, b: (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]
    return lambda a, b: (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def top_k_unsorted(x: np.ndarray, k: int, axis: int, largest: bool):
    """top_k's entries in the order Paddle's CPU kernel leaves them with sorted=False."""
    n = x.shape[axis]
    if not 1 <= k <= n:
        raise ValueError(f"top_k_v2: k must be in [1, {n}] (X.shape[{axis}]), got {k}")
    rows = np.moveaxis(x, axis, -1)
    flat = rows.reshape(-1, n)
    idx = np.empty((flat.shape[0], k), np.int64)
    less = _paddle_less(largest)
    for r, row in enumerate(flat.tolist()):
        pairs = list(zip(row, range(n), strict=True))
        if k * 64 < n:
            partial_sort(pairs, k, less)
        else:
            nth_element(pairs, k - 1, less)
        idx[r] = [j for _, j in pairs[:k]]
    idx = np.moveaxis(idx.reshape(rows.shape[:-1] + (k,)), -1, axis)
    return np.take_along_axis(x, idx, axis=axis), idx


@top_k_v2.kernel(dtypes=NUMERIC)
def top_k_v2_kernel(attrs, x, k):
    k = attrs["k"] if k is None else int(np.asarray(k).reshape(-1)[0])
    if not attrs["sorted"] and x.ndim > 0:
        return top_k_unsorted(x, k, attrs["axis"], attrs["largest"])
    return top_k(x, k, attrs["axis"], attrs["largest"])


@top_k_v2.grad_maker
def _(g):
    return [g.grad_op("top_k_v2_grad",
                      inputs={"X": g.input("X"), "Indices": g.output("Indices"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"axis": g.attr("axis")})]


top_k_v2_grad = register_op(
    "top_k_v2_grad",
    inputs=[In("X", no_need_buffer=True), In("Indices"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("k", "int", 1), Attr("axis", "int", -1), Attr("largest", "bool", True),
           Attr("sorted", "bool", True)],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut put back at Indices along axis, zeros elsewhere.",
)


@top_k_v2_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@top_k_v2_grad.kernel(dtypes=FLOATS)
def top_k_v2_grad_kernel(attrs, x, indices, dout):
    dx = np.zeros(x.shape, dout.dtype)
    if x.ndim == 0:
        return dout.astype(dout.dtype, copy=True)
    np.put_along_axis(dx, indices, dout, axis=attrs["axis"])
    return dx
