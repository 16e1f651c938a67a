"""nll_loss (+ _grad): negative log likelihood of log-probabilities at the labels.

X is [N, C] or [N, C, d1, ...] (classes on dim 1), Label int64 [N] or [N, d1, ...],
Weight [C] (default all 1). For each position p with label l = Label[p] not equal
to ignore_index:

    loss[p] = -Weight[l] * X[n, l, ...]          (0 at ignored positions)
    Total_weight = sum of Weight[l] over the positions not ignored        (0-D)
    Out = loss (reduction none), sum(loss) (sum), sum(loss) / Total_weight
          (mean; 0 when Total_weight is 0)                               (0-D)
    dX[n, l, ...] = -Weight[l] * dOut (per position; divided by Total_weight for mean)

A label outside [0, C) that is not ignore_index is a KernelError naming it.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [Attr("ignore_index", "long", -100, "positions with this label count for nothing"),
          Attr("reduction", "string", "mean", "none, sum or mean")]

nll_loss = register_op(
    "nll_loss",
    inputs=[In("X", "log-probabilities [N, C, ...]"), In("Label", "int64 [N, ...]"),
            In("Weight", "[C] class weights", dispensable=True)],
    outputs=[Out("Out", "the loss: Label's shape (none) or 0-D"),
             Out("Total_weight", "0-D: the weights summed over the counted positions")],
    attrs=_ATTRS,
    doc=__doc__,
)


@nll_loss.infer_shape
def _(ctx):
    x, label = ctx.input_shape("X"), ctx.input_shape("Label")
    ctx.enforce(len(x) >= 2, lambda: f"X must be [N, C, ...], got {shape_str(x)}")
    want = [x[0]] + list(x[2:])
    ctx.enforce(len(label) == len(want) and all(a < 0 or b < 0 or a == b
                                                for a, b in zip(label, want, strict=True)),
                lambda: f"Label must have shape {shape_str(want)} for X {shape_str(x)}, got "
                f"{shape_str(label)}")
    ctx.enforce(ctx.input_dtype("Label").kind in "iu",
                lambda: f"Label must hold integer classes, got {ctx.input_dtype('Label')}")
    if ctx.has_input("Weight"):
        w = ctx.input_shape("Weight")
        ctx.enforce(len(w) == 1 and (w[0] < 0 or x[1] < 0 or w[0] == x[1]),
                    lambda: f"Weight must be [C] = [{x[1]}], got {shape_str(w)}")
    reduction = ctx.attr("reduction")
    ctx.enforce(reduction in ("none", "sum", "mean"),
                lambda: f"reduction must be none, sum or mean, got {reduction!r}")
    dtype = ctx.input_dtype("X")
    ctx.set_output("Out", want if reduction == "none" else [], dtype)
    ctx.set_output("Total_weight", [], dtype)


def _picked(op_type, attrs, x, label, weight):
    """(class index per position, weight per position (0 where ignored))."""
    ignore, classes = attrs["ignore_index"], x.shape[1]
    counted = label != ignore
    bad = counted & ((label < 0) | (label >= classes))
    if bad.any():
        first = int(np.flatnonzero(bad.reshape(-1))[0])
        raise KernelError(f"{op_type}: Label[{first}] = {int(label.reshape(-1)[first])} is "
                          f"outside the class range [0, {classes}) (ignore_index={ignore})")
    index = np.where(counted, label, 0).astype(np.int64)
    w = (np.ones(classes, x.dtype) if weight is None else weight)[index] * counted
    return index, w.astype(x.dtype)


@nll_loss.kernel(dtypes=FLOATS)
def nll_loss_kernel(attrs, x, label, weight):
    index, w = _picked("nll_loss", attrs, x, label, weight)
    at_label = np.take_along_axis(x, np.expand_dims(index, 1), axis=1).squeeze(1)
    loss = -w * at_label
    total = w.sum(dtype=x.dtype)
    if attrs["reduction"] == "none":
        out = loss
    else:
        out = loss.sum(dtype=x.dtype)
        if attrs["reduction"] == "mean" and total != 0:
            out = out / total
    return np.asarray(out, x.dtype), np.asarray(total, x.dtype)


@nll_loss.grad_maker
def _(g):
    inputs = {"X": g.input("X"), "Label": g.input("Label"),
              "Total_weight": g.output("Total_weight"), "Out@GRAD": g.output_grad("Out")}
    if g.input("Weight"):
        inputs["Weight"] = g.input("Weight")
    return [g.grad_op("nll_loss_grad", inputs=inputs, outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


nll_loss_grad = register_op(
    "nll_loss_grad",
    inputs=[In("X", no_need_buffer=True), In("Label"), In("Weight", dispensable=True),
            In("Total_weight"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="dX = -Weight[Label] * dOut at the labels (/ Total_weight for mean), 0 elsewhere.",
)


@nll_loss_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))


@nll_loss_grad.kernel(dtypes=FLOATS)
def nll_loss_grad_kernel(attrs, x, label, weight, total, dout):
    index, w = _picked("nll_loss_grad", attrs, x, label, weight)
    scale = dout if attrs["reduction"] == "none" else np.broadcast_to(dout, w.shape)
    grad = -w * scale
    total = total.reshape(())
    if attrs["reduction"] == "mean" and total != 0:
        grad = grad / total
    dx = np.zeros(x.shape, dout.dtype)
    np.put_along_axis(dx, np.expand_dims(index, 1), np.expand_dims(grad, 1), axis=1)
    return dx
