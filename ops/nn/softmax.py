"""softmax (+ softmax_grad): Out = exp(X - max(X)) / sum(exp(X - max(X))) along `axis`.

Subtracting the max along the axis keeps exp from overflowing; the result is
the same softmax. Out has X's shape, dtype and LoD.

    dX = Out * (dOut - sum(dOut * Out, axis))
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [Attr("axis", "int", -1, "the axis to normalize along; negative counts from the end")]


def stable_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """softmax along `axis`, computed on x - max(x) so that exp never overflows."""
    e = x - x.max(axis=axis, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(axis=axis, keepdims=True)
    return e


def check_axis(ctx, slot: str, attr: str = "axis") -> int:
    """The attribute `attr` as an axis of input `slot`, normalized to be non-negative."""
    shape = ctx.input_shape(slot)
    axis = ctx.attr(attr)
    rank = len(shape)
    ctx.enforce(-rank <= axis < rank,
                lambda: f"{attr} must be in [-{rank}, {rank}) for {slot}.shape={shape_str(shape)}, "
                f"got {axis}")
    return axis % rank


softmax = register_op(
    "softmax",
    inputs=[In("X", "the scores, rank >= 1")],
    outputs=[Out("Out", "probabilities along axis, with X's shape and LoD")],
    attrs=_ATTRS,
    fallback=True,
    doc=__doc__,
)


@softmax.infer_shape
def _(ctx):
    check_axis(ctx, "X")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


@softmax.kernel(dtypes=FLOATS)
def softmax_dense(attrs, x):
    return stable_softmax(x, attrs["axis"])


@softmax.grad_maker
def _(g):
    return [g.grad_op("softmax_grad",
                      inputs={"Out": g.output("Out"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"axis": g.attr("axis")})]


softmax_grad = register_op(
    "softmax_grad",
    inputs=[In("Out"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    fallback=True,
    doc="dX = Out * (dOut - sum(dOut * Out, axis)).",
)


@softmax_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("Out"), ctx.input_dtype("Out"))
    ctx.share_lod("Out", "X@GRAD")


@softmax_grad.kernel(dtypes=FLOATS)
def softmax_grad_dense(attrs, out, dout):
    dx = dout * out
    dx -= out * dx.sum(axis=attrs["axis"], keepdims=True)
    return dx
