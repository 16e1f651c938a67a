"""top_k (+ top_k_grad): the k largest entries along the last axis, largest first.

    Out[..., j]     = the j-th largest of X[..., :]
    Indices[..., j] = its position in X[..., :] (int64)

Equal values come out in an unspecified order. Out and Indices have X's LoD.
The gradient routes dOut back to the chosen positions: dX = 0 except
dX[..., Indices[..., j]] = dOut[..., j].
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, NUMERIC, Attr, In, Out, register_op

top_k = register_op(
    "top_k",
    inputs=[In("X", "rank >= 1; the last axis is searched")],
    outputs=[Out("Out", "X.shape[:-1] + [k], descending"),
             Out("Indices", "int64, the positions of Out's values in X's last axis")],
    attrs=[Attr("k", "int", 1, "how many entries to keep, 1 <= k <= X.shape[-1]")],
    doc=__doc__,
)


@top_k.infer_shape
def _(ctx):
    x, k = ctx.input_shape("X"), ctx.attr("k")
    ctx.enforce(len(x) >= 1, "X must have rank >= 1, got a 0-D tensor")
    ctx.enforce(k >= 1, lambda: f"k must be at least 1, got {k}")
    ctx.enforce(x[-1] < 0 or k <= x[-1],
                lambda: f"k must not exceed X's last dim, got k={k} for X.shape={shape_str(x)}")
    out = tuple(x[:-1]) + (k,)
    ctx.set_output("Out", out, ctx.input_dtype("X"))
    ctx.set_output("Indices", out, np.int64)
    ctx.share_lod("X", "Out")
    ctx.share_lod("X", "Indices")


@top_k.kernel(dtypes=NUMERIC)
def top_k_dense(attrs, x):
    k, n = attrs["k"], x.shape[-1]
    # argpartition finds the k largest in O(n); only those k are then sorted.
    chosen = np.argpartition(x, n - k, axis=-1)[..., n - k:] if k < n else np.argsort(x, -1)
    values = np.take_along_axis(x, chosen, axis=-1)
    order = np.argsort(values, axis=-1)[..., ::-1]
    indices = np.take_along_axis(chosen, order, axis=-1).astype(np.int64, copy=False)
    return np.take_along_axis(values, order, axis=-1), indices


@top_k.grad_maker
def _(g):
    return [g.grad_op("top_k_grad",
                      inputs={"X": g.input("X"), "Indices": g.output("Indices"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"k": g.attr("k")})]


top_k_grad = register_op(
    "top_k_grad",
    inputs=[In("X"), In("Indices"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("k", "int", 1)],
    key_inputs=["Out@GRAD"],
    doc="dX = zeros like X with dOut scattered to Indices along the last axis.",
)


@top_k_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


@top_k_grad.kernel(dtypes=FLOATS)
def top_k_grad_dense(attrs, x, indices, dout):
    dx = np.zeros(x.shape, dtype=x.dtype)
    np.put_along_axis(dx, indices, dout, axis=-1)
    return dx
