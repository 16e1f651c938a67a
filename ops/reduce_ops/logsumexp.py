"""logsumexp (+ _grad):

    Out = log(sum(exp(X), axis)) (all dims when reduce_all or axis is empty)
    dX  = dOut * exp(X - Out)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

logsumexp = register_op(
    "logsumexp",
    inputs=[In("X")],
    outputs=[Out("Out", "log(sum(exp(X))) over axis")],
    attrs=[Attr("axis", "ints", [], "the dims reduced (empty: all)"),
           Attr("keepdim", "bool", False, "keep reduced dims as 1"),
           Attr("reduce_all", "bool", False, "reduce every dim")],
    doc=__doc__,
)


def _lse_axes(attrs, rank: int) -> tuple[int, ...]:
    axis = list(attrs["axis"])
    if attrs["reduce_all"] or not axis or len(axis) == rank:
        return tuple(range(rank))
    return tuple(sorted(a % rank for a in axis))


@logsumexp.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    for a in ctx.attr("axis"):
        ctx.enforce(-max(len(x), 1) <= a < max(len(x), 1),
                    lambda: f"axis holds {a}, outside X {shape_str(x)}")
    axes = _lse_axes({a: ctx.attr(a) for a in ("axis", "reduce_all")}, len(x))
    if ctx.attr("keepdim"):
        out = [1 if k in axes else d for k, d in enumerate(x)]
    else:
        out = [d for k, d in enumerate(x) if k not in axes]
    ctx.set_output("Out", out, ctx.input_dtype("X"))


@logsumexp.kernel(dtypes=FLOATS)
def logsumexp_kernel(attrs, x):
    axes = _lse_axes(attrs, x.ndim)
    if x.ndim == 0:
        return x.copy()
    top = np.max(x, axis=axes, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    out = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True)) + top
    return np.asarray(out if attrs["keepdim"] else np.squeeze(out, axis=axes), dtype=x.dtype)


@logsumexp.grad_maker
def _(g):
    return [g.grad_op("logsumexp_grad",
                      inputs={"X": g.input("X"), "Out": g.output("Out"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a: g.attr(a) for a in ("axis", "keepdim", "reduce_all")})]


logsumexp_grad = register_op(
    "logsumexp_grad",
    inputs=[In("X"), In("Out"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("axis", "ints", []), Attr("keepdim", "bool", False),
           Attr("reduce_all", "bool", False)],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut * exp(X - Out).",
)


@logsumexp_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@logsumexp_grad.kernel(dtypes=FLOATS)
def logsumexp_grad_kernel(attrs, x, out, dout):
    axes = _lse_axes(attrs, x.ndim)
    kept = [1 if k in axes else d for k, d in enumerate(x.shape)]
    return (dout.reshape(kept) * np.exp(x - out.reshape(kept))).astype(x.dtype)
