"""cross_entropy, cross_entropy2 and softmax_with_cross_entropy (+ _grad): losses over
class probabilities.

cross_entropy takes probabilities X [..., D] (as softmax gives them):

    hard labels (Label int [..., 1]):      Y = -log(X[..., Label])
    soft labels (Label float [..., D]):    Y = -sum(Label * log(X), -1)

Y is [..., 1] (Paddle's slot name for the loss) and has X's LoD. With hard
labels, rows whose label equals `ignore_index` get Y = 0 and no gradient; any
other label outside [0, D) is a KernelError naming the op. Soft labels ignore
`ignore_index`, as in Paddle.

cross_entropy2 (what Fluid 1.6+'s `layers.cross_entropy` emits for hard labels) is the
same loss with two more outputs for its gradient: MatchX = X at the label ([..., 1], 0
for ignored rows) and XShape ([0] + X.shape, no data); its grad op reads only those:
dX = -dY / MatchX at the label, 0 elsewhere. A probability of 0 at the label gives an
infinite loss here; Paddle's kernel clamps it to 1e20.

softmax_with_cross_entropy takes unnormalized Logits and fuses the two, along
`axis`, on the stable log-softmax z - max(z) - log(sum(exp(z - max(z)))):

    Softmax = exp(log_softmax(Logits)),  Loss = -log_softmax[Label]  (or -sum(Label * log_softmax))
    dLogits = dLoss * (Softmax - onehot(Label))   (soft: dLoss * (Softmax * sum(Label) - Label))
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.nn.softmax import check_axis
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_LABEL_ATTRS = [
    Attr("soft_label", "bool", False, "Label holds a distribution per row instead of an index"),
    Attr("ignore_index", "int", -100, "rows with this hard label get no loss and no gradient"),
]


def _check_label(ctx, x_slot: str, axis: int, soft: bool | None = None) -> None:
    """Label's shape and dtype against X's: hard labels [.., 1 at axis, ..], soft ones X's
    (`soft` None: the op's soft_label attribute)."""
    x, label = ctx.input_shape(x_slot), ctx.input_shape("Label")
    x_dtype, label_dtype = ctx.input_dtype(x_slot), ctx.input_dtype("Label")
    soft = ctx.attr("soft_label") if soft is None else soft
    want = list(x)
    if not soft:
        want[axis] = 1
    ctx.enforce(len(label) == len(x) and all(dims_match(a, b) for a, b in zip(label, want,
                                                                             strict=True)), lambda:
                f"Label must have shape {shape_str(want)} for {x_slot}.shape={shape_str(x)} "
                f"with soft_label={soft}, got {shape_str(label)}")
    if soft:
        ctx.enforce(label_dtype == x_dtype,
                    lambda: f"soft labels must have {x_slot}'s dtype {x_dtype}, got {label_dtype}")
    else:
        ctx.enforce(label_dtype.kind in "iu",
                    lambda: f"hard labels must be integers (int64), got {label_dtype}",
                    hint="pass soft_label=True for a probability distribution per row")


def _valid_labels(op_type: str, label: np.ndarray, num_classes: int, ignore_index: int):
    """(labels safe to index with, mask of rows that count); KernelError for a bad label."""
    valid = label != ignore_index
    bad = valid & ((label < 0) | (label >= num_classes))
    if bad.any():
        first = int(np.flatnonzero(bad.reshape(-1))[0])
        raise KernelError(
            f"{op_type}: Label[{first}] = {int(label.reshape(-1)[first])} is outside the class "
            f"range [0, {num_classes}); {int(bad.sum())} label(s) out of range "
            f"(ignore_index={ignore_index})")
    return np.where(valid, label, 0), valid


# --- cross_entropy ---------------------------------------------------------------------------

cross_entropy = register_op(
    "cross_entropy",
    inputs=[In("X", "probabilities [..., D]"),
            In("Label", "int [..., 1] class indices, or float [..., D] with soft_label")],
    outputs=[Out("Y", "the loss per row, [..., 1], with X's LoD")],
    attrs=_LABEL_ATTRS,
    doc=__doc__,
)


@cross_entropy.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) >= 1, "X must have rank >= 1 (the last axis holds the classes)")
    _check_label(ctx, "X", len(x) - 1)
    ctx.set_output("Y", tuple(x[:-1]) + (1,), ctx.input_dtype("X"))
    if len(x) > 1:
        ctx.share_lod("X", "Y")


@cross_entropy.kernel(dtypes=FLOATS)
def cross_entropy_dense(attrs, x, label):
    if attrs["soft_label"]:
        return -(label * np.log(x)).sum(axis=-1, keepdims=True)
    index, valid = _valid_labels("cross_entropy", label, x.shape[-1], attrs["ignore_index"])
    picked = np.take_along_axis(x, index, axis=-1)
    picked[~valid] = 1  # keeps log() quiet on an ignored row's probability
    loss = np.negative(np.log(picked, out=picked), out=picked)
    loss[~valid] = 0
    return loss


@cross_entropy.grad_maker
def _(g):
    return [g.grad_op(
        "cross_entropy_grad",
        inputs={"X": g.input("X"), "Label": g.input("Label"), "Y@GRAD": g.output_grad("Y")},
        outputs={"X@GRAD": g.input_grad("X")},
        attrs={"soft_label": g.attr("soft_label"), "ignore_index": g.attr("ignore_index")})]


cross_entropy_grad = register_op(
    "cross_entropy_grad",
    inputs=[In("X"), In("Label"), In("Y@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=_LABEL_ATTRS,
    doc="hard: dX = -dY / X at the label (0 elsewhere and for ignored rows); "
        "soft: dX = -dY * Label / X.",
)


@cross_entropy_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


@cross_entropy_grad.kernel(dtypes=FLOATS)
def cross_entropy_grad_dense(attrs, x, label, dy):
    if attrs["soft_label"]:
        return -dy * label / x
    index, valid = _valid_labels("cross_entropy_grad", label, x.shape[-1],
                                 attrs["ignore_index"])
    picked = np.take_along_axis(x, index, axis=-1)
    picked[~valid] = 1  # no division by an ignored row's probability
    at_label = -dy / picked
    at_label[~valid] = 0
    dx = np.zeros_like(x)
    np.put_along_axis(dx, index, at_label, axis=-1)
    return dx


# --- cross_entropy2 --------------------------------------------------------------------------

_IGNORE = [Attr("ignore_index", "int", -100, "rows with this label get no loss and no gradient")]

cross_entropy2 = register_op(
    "cross_entropy2",
    inputs=[In("X", "probabilities [..., D]"), In("Label", "int [..., 1] class indices")],
    outputs=[Out("Y", "the loss per row, [..., 1], with X's LoD"),
             Out("XShape", "[0] + X.shape, X's dtype, no data: X's shape for the grad op"),
             Out("MatchX", "X at the label, [..., 1] (0 for ignored rows)")],
    attrs=_IGNORE,
    doc=__doc__,
)


@cross_entropy2.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) >= 1, "X must have rank >= 1 (the last axis holds the classes)")
    _check_label(ctx, "X", len(x) - 1, soft=False)
    rows = tuple(x[:-1]) + (1,)
    dtype = ctx.input_dtype("X")
    ctx.set_output("Y", rows, dtype)
    ctx.set_output("MatchX", rows, dtype)
    ctx.set_output("XShape", (0,) + tuple(x), dtype)
    if len(x) > 1:
        ctx.share_lod("X", "Y")


@cross_entropy2.kernel(dtypes=FLOATS)
def cross_entropy2_dense(attrs, x, label):
    index, valid = _valid_labels("cross_entropy2", label, x.shape[-1], attrs["ignore_index"])
    match = np.take_along_axis(x, index, axis=-1)
    match[~valid] = 0
    safe = np.where(valid, match, 1)  # keeps log() quiet on an ignored row
    loss = np.negative(np.log(safe))
    loss[~valid] = 0
    return loss, np.empty((0,) + x.shape, x.dtype), match


@cross_entropy2.grad_maker
def _(g):
    return [g.grad_op(
        "cross_entropy_grad2",
        inputs={"MatchX": g.output("MatchX"), "Label": g.input("Label"),
                "XShape": g.output("XShape"), "Y@GRAD": g.output_grad("Y")},
        outputs={"X@GRAD": g.input_grad("X")},
        attrs={"ignore_index": g.attr("ignore_index")})]


cross_entropy_grad2 = register_op(
    "cross_entropy_grad2",
    inputs=[In("MatchX"), In("Label"), In("XShape"), In("Y@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=_IGNORE,
    key_inputs=["Y@GRAD"],
    doc="dX = -dY / MatchX at the label, 0 elsewhere and for ignored rows.",
)


@cross_entropy_grad2.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", tuple(ctx.input_shape("XShape"))[1:], ctx.input_dtype("Y@GRAD"))
    ctx.share_lod("Y@GRAD", "X@GRAD")


@cross_entropy_grad2.kernel(dtypes=FLOATS)
def cross_entropy_grad2_dense(attrs, match, label, xshape, dy):
    shape = xshape.shape[1:]
    index, valid = _valid_labels("cross_entropy_grad2", label, shape[-1],
                                 attrs["ignore_index"])
    at_label = -dy / np.where(valid, match, 1)
    at_label[~valid] = 0
    dx = np.zeros(shape, dy.dtype)
    np.put_along_axis(dx, index, at_label, axis=-1)
    return dx


# --- softmax_with_cross_entropy --------------------------------------------------------------

_SWCE_ATTRS = _LABEL_ATTRS + [
    Attr("numeric_stable_mode", "bool", True, "kept for Paddle programs; always stable here"),
    Attr("axis", "int", -1, "the class axis; negative counts from the end"),
]

softmax_with_cross_entropy = register_op(
    "softmax_with_cross_entropy",
    inputs=[In("Logits", "unnormalized scores, classes along axis"),
            In("Label", "int class indices (1 at axis), or float like Logits with soft_label")],
    outputs=[Out("Softmax", "softmax(Logits) along axis"),
             Out("Loss", "Logits' shape with 1 at axis")],
    attrs=_SWCE_ATTRS,
    doc=__doc__,
)


@softmax_with_cross_entropy.infer_shape
def _(ctx):
    axis = check_axis(ctx, "Logits")
    _check_label(ctx, "Logits", axis)
    logits, dtype = ctx.input_shape("Logits"), ctx.input_dtype("Logits")
    loss = list(logits)
    loss[axis] = 1
    ctx.set_output("Softmax", logits, dtype)
    ctx.set_output("Loss", loss, dtype)
    if axis != 0:  # the rows a LoD describes survive
        ctx.share_lod("Logits", "Softmax")
        ctx.share_lod("Logits", "Loss")


@softmax_with_cross_entropy.kernel(dtypes=FLOATS)
def softmax_with_cross_entropy_dense(attrs, logits, label):
    axis = attrs["axis"]
    log_softmax = logits - logits.max(axis=axis, keepdims=True)
    softmax = np.exp(log_softmax)
    total = softmax.sum(axis=axis, keepdims=True)
    softmax /= total
    log_softmax -= np.log(total)
    if attrs["soft_label"]:
        loss = -(label * log_softmax).sum(axis=axis, keepdims=True)
    else:
        index, valid = _valid_labels("softmax_with_cross_entropy", label,
                                     logits.shape[axis], attrs["ignore_index"])
        loss = np.negative(np.take_along_axis(log_softmax, index, axis=axis))
        loss[~valid] = 0
    return softmax, loss


@softmax_with_cross_entropy.grad_maker
def _(g):
    return [g.grad_op(
        "softmax_with_cross_entropy_grad",
        inputs={"Softmax": g.output("Softmax"), "Label": g.input("Label"),
                "Loss@GRAD": g.output_grad("Loss")},
        outputs={"Logits@GRAD": g.input_grad("Logits")},
        attrs={a.name: g.attr(a.name) for a in _SWCE_ATTRS})]


softmax_with_cross_entropy_grad = register_op(
    "softmax_with_cross_entropy_grad",
    inputs=[In("Softmax"), In("Label"), In("Loss@GRAD")],
    outputs=[Out("Logits@GRAD", dispensable=True)],
    attrs=_SWCE_ATTRS,
    key_inputs=["Loss@GRAD"],
    doc="dLogits = dLoss * (Softmax - onehot(Label)), 0 for ignored rows; "
        "soft: dLoss * (Softmax * sum(Label) - Label).",
)


@softmax_with_cross_entropy_grad.infer_shape
def _(ctx):
    ctx.set_output("Logits@GRAD", ctx.input_shape("Softmax"), ctx.input_dtype("Softmax"))
    ctx.share_lod("Softmax", "Logits@GRAD")


@softmax_with_cross_entropy_grad.kernel(dtypes=FLOATS)
def softmax_with_cross_entropy_grad_dense(attrs, softmax, label, dloss):
    axis = attrs["axis"]
    if attrs["soft_label"]:
        return dloss * (softmax * label.sum(axis=axis, keepdims=True) - label)
    index, valid = _valid_labels("softmax_with_cross_entropy_grad", label,
                                 softmax.shape[axis], attrs["ignore_index"])
    dlogits = softmax * (dloss * valid)
    at_label = np.take_along_axis(dlogits, index, axis=axis)
    at_label -= dloss * valid
    np.put_along_axis(dlogits, index, at_label, axis=axis)
    return dlogits
