"""sigmoid_cross_entropy_with_logits (+ _grad): elementwise logistic loss of logits X.

    Out = max(X, 0) - X * Label + log(1 + exp(-|X|))
        = -Label * log(sigmoid(X)) - (1 - Label) * log(1 - sigmoid(X)),

written in the first form so that no exp overflows. Label holds targets in
[0, 1] of X's shape. Where Label == ignore_index, Out is 0. With `normalize`,
Out is divided by the number of non-ignored elements (at least 1). Out has X's
LoD.

Gradient: dX = (sigmoid(X) - Label) * dOut, 0 where ignored, divided like Out
when normalizing. Label gets no gradient (as in Paddle).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops import special
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [
    Attr("ignore_index", "int", -100, "a Label value whose elements get no loss"),
    Attr("normalize", "bool", False, "divide by the number of non-ignored elements"),
]

op = register_op(
    "sigmoid_cross_entropy_with_logits",
    inputs=[In("X", "logits"), In("Label", "targets in [0, 1], X's shape")],
    outputs=[Out("Out", "the elementwise loss, X's shape and LoD")],
    attrs=_ATTRS,
    fallback=True,
    doc=__doc__,
)


@op.infer_shape
def _(ctx):
    x, label = ctx.input_shape("X"), ctx.input_shape("Label")
    ctx.enforce(len(x) == len(label) and all(map(dims_match, x, label)), lambda:
                f"Label must have X's shape, got X {shape_str(x)} and Label {shape_str(label)}")
    ctx.enforce(ctx.input_dtype("Label") == ctx.input_dtype("X"),
                lambda: f"Label must have X's dtype {ctx.input_dtype('X')}, got "
                f"{ctx.input_dtype('Label')}", hint="insert a cast op")
    ctx.set_output("Out", x, ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def _kept_and_norm(attrs, label):
    """The mask of elements that count, and what to divide by (1 without normalize)."""
    kept = label != attrs["ignore_index"]
    norm = max(int(kept.sum()), 1) if attrs["normalize"] else 1
    return kept, norm


@op.kernel(dtypes=FLOATS)
def sigmoid_cross_entropy_with_logits_dense(attrs, x, label):
    out = np.maximum(x, 0) - x * label + np.log1p(np.exp(-np.abs(x)))
    kept, norm = _kept_and_norm(attrs, label)
    out = np.where(kept, out, 0).astype(x.dtype, copy=False)
    return out / x.dtype.type(norm) if norm != 1 else out


@op.grad_maker
def _(g):
    return [g.grad_op("sigmoid_cross_entropy_with_logits_grad",
                      inputs={"X": g.input("X"), "Label": g.input("Label"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"ignore_index": g.attr("ignore_index"),
                             "normalize": g.attr("normalize")})]


grad = register_op(
    "sigmoid_cross_entropy_with_logits_grad",
    inputs=[In("X"), In("Label"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=_ATTRS,
    fallback=True,
    doc="dX = (sigmoid(X) - Label) * dOut, 0 where Label == ignore_index (normalized like Out).",
)


@grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


@grad.kernel(dtypes=FLOATS)
def sigmoid_cross_entropy_with_logits_grad_dense(attrs, x, label, dout):
    kept, norm = _kept_and_norm(attrs, label)
    dx = np.where(kept, (special.expit(x) - label) * dout, 0).astype(x.dtype, copy=False)
    return dx / x.dtype.type(norm) if norm != 1 else dx
