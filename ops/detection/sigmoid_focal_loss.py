"""sigmoid_focal_loss (+ sigmoid_focal_loss_grad): RetinaNet's focal loss per logit.

X [N, C] logits of classes 1..C (column j is class j + 1), Label int32 [N, 1] (0:
background, -1: ignored), FgNum int32 [1] (the foreground count; below 1 counts as 1).
With p = sigmoid(x), f = max(FgNum, 1):

    label == j + 1:          Out = -alpha / f (1 - p)^gamma log(max(p, FLT_MIN))
    label not in {-1, j + 1}: Out = -(1 - alpha) / f p^gamma log(1 - p)
    label == -1:             Out = 0

log(1 - p) is taken as -x [x >= 0] - log(1 + exp(x - 2 x [x >= 0])), which does not
overflow. dX is the derivative of Out (Label and FgNum get none).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.special import expit

sigmoid_focal_loss = register_op(
    "sigmoid_focal_loss",
    inputs=[In("X", "[N, C] logits"), In("Label", "int32 [N, 1]: 0 background, -1 ignored"),
            In("FgNum", "int32 [1]: the number of foreground rows")],
    outputs=[Out("Out", "[N, C]")],
    attrs=[Attr("gamma", "float", 2.0, "the focusing exponent"),
           Attr("alpha", "float", 0.25, "the weight of the positive class")],
    doc=__doc__,
)


@sigmoid_focal_loss.infer_shape
def _(ctx):
    x, label, fg = ctx.input_shape("X"), ctx.input_shape("Label"), ctx.input_shape("FgNum")
    ctx.enforce(len(x) == 2, lambda: f"X must be [N, C], got {shape_str(x)}")
    ctx.enforce(len(label) == 2 and label[1] in (-1, 1)
                and (label[0] < 0 or x[0] < 0 or label[0] == x[0]),
                lambda: f"Label must be [{x[0]}, 1] for X {shape_str(x)}, got {shape_str(label)}")
    ctx.enforce(any(d < 0 for d in fg) or int(np.prod(fg)) == 1,
                lambda: f"FgNum must hold one value, got {shape_str(fg)}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def _terms(x, label, fg_num, attrs):
    """(positive mask, negative mask, p, log p, log(1 - p), alpha / f, (1 - alpha) / f)."""
    dtype = x.dtype.type
    classes = np.arange(1, x.shape[1] + 1)[None, :]
    label = np.asarray(label).reshape(-1, 1)
    pos = (label == classes).astype(x.dtype)
    neg = ((label != -1) & (label != classes)).astype(x.dtype)
    f = dtype(max(int(np.asarray(fg_num).reshape(-1)[0]), 1))
    p = expit(x)
    log_p = np.log(np.maximum(p, np.finfo(np.float32).tiny))
    nonneg = (x >= 0).astype(x.dtype)
    log_1mp = -x * nonneg - np.log1p(np.exp(x - 2 * x * nonneg))
    alpha = dtype(attrs["alpha"])
    return pos, neg, p, log_p, log_1mp, alpha / f, (1 - alpha) / f


@sigmoid_focal_loss.kernel(dtypes=FLOATS)
def sigmoid_focal_loss_kernel(attrs, x, label, fg_num):
    pos, neg, p, log_p, log_1mp, s_pos, s_neg = _terms(x, label, fg_num, attrs)
    gamma = x.dtype.type(attrs["gamma"])
    out = -pos * (1 - p) ** gamma * log_p * s_pos - neg * p ** gamma * log_1mp * s_neg
    return out.astype(x.dtype)


@sigmoid_focal_loss.grad_maker
def _(g):
    return [g.grad_op("sigmoid_focal_loss_grad",
                      inputs={"X": g.input("X"), "Label": g.input("Label"),
                              "FgNum": g.input("FgNum"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"gamma": g.attr("gamma"), "alpha": g.attr("alpha")})]


sigmoid_focal_loss_grad = register_op(
    "sigmoid_focal_loss_grad",
    inputs=[In("X"), In("Label"), In("FgNum"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=list(sigmoid_focal_loss.attrs),
    key_inputs=["X"],
    doc="dX = dOut d(Out)/dX, with dp/dx = p (1 - p).",
)


@sigmoid_focal_loss_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@sigmoid_focal_loss_grad.kernel(dtypes=FLOATS)
def sigmoid_focal_loss_grad_kernel(attrs, x, label, fg_num, dout):
    pos, neg, p, log_p, log_1mp, s_pos, s_neg = _terms(x, label, fg_num, attrs)
    gamma = x.dtype.type(attrs["gamma"])
    # d/dx of (1 - p)^g log p = (1 - p)^g (1 - p - g p log p);
    # d/dx of p^g log(1 - p) = p^g (g (1 - p) log(1 - p) - p).
    d_pos = (1 - p) ** gamma * (1 - p - gamma * p * log_p)
    d_neg = p ** gamma * (gamma * (1 - p) * log_1mp - p)
    return ((-pos * d_pos * s_pos - neg * d_neg * s_neg) * dout).astype(x.dtype)
