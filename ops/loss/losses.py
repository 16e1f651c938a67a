"""Loss ops of Fluid 1.7 (+ their _grad ops), each a forward formula and its derivative:

    huber_loss      r = Y - X; Out = r^2 / 2 if |r| <= delta, else delta * (|r| - delta / 2)
    log_loss        Loss = -L * log(P + eps) - (1 - L) * log(1 - P + eps)
    smooth_l1_loss  d = (X - Y) * InsideWeight; v = (sigma * d)^2 / 2 if |d| < 1 / sigma^2,
                    else |d| - 0.5 / sigma^2; Out[i] = sum_j v[i, j] * OutsideWeight[i, j]
    kldiv_loss      l = T * (log T - X) where T > 0, else 0; reduced by `reduction`
                    (none, batchmean = sum / N, mean, sum)
    margin_rank_loss  Out = max(0, -Label * (X1 - X2) + margin)
    rank_loss       Out = log(1 + exp(Left - Right)) - Label * (Left - Right)
    bpr_loss        Y[i] = -1 / (C - 1) * sum_{j != l_i} log(sigmoid(X[i, l_i] - X[i, j]))
    teacher_student_sigmoid_loss  with s(x, z) = max(x, 0) - x z + log(1 + exp(-|x|)):
                    label < -1: s(x, 0); -1 <= label < 0: s(x, 1);
                    0 <= label < 1: s(x, 0) + s(x, label); label >= 1: s(x, 1) + s(x, label - 1)

Each grad op reads the forward inputs and dOut and returns the gradients of
the differentiable inputs (labels get none).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops import special
from paddle_ir.ops.registry import INTS, Attr, In, Out
from paddle_ir.ops.simple_op import register_simple, same_shape


def _register(op_type, inputs, outputs, attrs, infer, forward, backward, wrt, out_slot,
              keep=None, doc=""):
    register_simple(op_type, inputs, outputs, attrs, infer, forward, backward=backward,
                    wrt=wrt, out_slot=out_slot, keep=keep or (), doc=doc or __doc__)


def _rows_one(ctx, slot: str):
    return (ctx.input_shape(slot)[0], 1)


# -- huber_loss ------------------------------------------------------------------------------

def _infer_huber(ctx):
    ctx.enforce(ctx.attr("delta") >= 0, lambda:
                f"delta must be >= 0 (where the quadratic turns linear), got {ctx.attr('delta')}")
    same_shape(ctx, "X", "Y")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.set_output("Residual", ctx.input_shape("X"), ctx.input_dtype("X"))


def _huber(attrs, x, y):
    r = y - x
    a, delta = np.abs(r), attrs["delta"]
    return np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)).astype(x.dtype), r


def _huber_grad(attrs, x, y, residual, dout):
    delta = attrs["delta"]
    d = np.where(np.abs(residual) <= delta, residual, delta * np.sign(residual)) * dout
    return (-d).astype(x.dtype), d.astype(y.dtype)


_register("huber_loss", [In("X", "predictions"), In("Y", "targets, X's shape")],
          [Out("Out", "X's shape"), Out("Residual", "Y - X")],
          [Attr("delta", "float", 1.0, "where the quadratic turns linear")],
          _infer_huber, _huber, _huber_grad, ["X", "Y"], "Out", keep=["Residual"])


# -- log_loss --------------------------------------------------------------------------------

def _infer_log_loss(ctx):
    ctx.enforce(ctx.attr("epsilon") >= 0, lambda:
                f"epsilon must be >= 0 (it keeps log away from 0), got {ctx.attr('epsilon')}")
    same_shape(ctx, "Predicted", "Labels")
    ctx.set_output("Loss", ctx.input_shape("Predicted"), ctx.input_dtype("Predicted"))


def _log_loss(attrs, p, label):
    eps = attrs["epsilon"]
    return (-label * np.log(p + eps) - (1 - label) * np.log(1 - p + eps)).astype(p.dtype)


def _log_loss_grad(attrs, p, label, dloss):
    eps = attrs["epsilon"]
    return ((-label / (p + eps) + (1 - label) / (1 - p + eps)) * dloss).astype(p.dtype)


_register("log_loss", [In("Predicted", "probabilities [N, 1]"), In("Labels", "0/1, [N, 1]")],
          [Out("Loss", "[N, 1]")], [Attr("epsilon", "float", 1e-4, "keeps log away from 0")],
          _infer_log_loss, _log_loss, _log_loss_grad, ["Predicted"], "Loss")


# -- smooth_l1_loss --------------------------------------------------------------------------

def _infer_smooth_l1(ctx):
    ctx.enforce(ctx.attr("sigma") > 0,
                lambda: f"sigma must be positive (the quadratic part spans |d| < 1 / sigma^2), got "
                f"{ctx.attr('sigma')}")
    same_shape(ctx, "X", "Y")
    for w in ("InsideWeight", "OutsideWeight"):
        if ctx.has_input(w):
            same_shape(ctx, "X", w)
    ctx.set_output("Diff", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.set_output("Out", _rows_one(ctx, "X"), ctx.input_dtype("X"))


def _smooth_l1(attrs, x, y, inside, outside):
    s2 = attrs["sigma"] ** 2
    d = x - y if inside is None else (x - y) * inside
    a = np.abs(d)
    v = np.where(a < 1.0 / s2, 0.5 * s2 * d * d, a - 0.5 / s2)
    if outside is not None:
        v = v * outside
    return d.astype(x.dtype), v.reshape(len(x), -1).sum(axis=1, keepdims=True).astype(x.dtype)


def _smooth_l1_grad(attrs, x, y, inside, outside, diff, dout):
    s2 = attrs["sigma"] ** 2
    g = np.where(np.abs(diff) < 1.0 / s2, s2 * diff, np.sign(diff))
    if outside is not None:
        g = g * outside
    if inside is not None:
        g = g * inside
    g = g * dout.reshape((-1,) + (1,) * (x.ndim - 1))
    return g.astype(x.dtype), (-g).astype(y.dtype)


_register("smooth_l1_loss",
          [In("X", "[N, ...]"), In("Y", "X's shape"),
           In("InsideWeight", "multiplies X - Y", dispensable=True),
           In("OutsideWeight", "multiplies each term", dispensable=True)],
          [Out("Diff", "(X - Y) * InsideWeight"), Out("Out", "[N, 1]")],
          [Attr("sigma", "float", 1.0, "sharpness of the quadratic part")],
          _infer_smooth_l1, _smooth_l1, _smooth_l1_grad, ["X", "Y"], "Out", keep=["Diff"])


# -- kldiv_loss ------------------------------------------------------------------------------

_REDUCTIONS = ("none", "batchmean", "mean", "sum")


def _infer_kldiv(ctx):
    reduction = ctx.attr("reduction")
    ctx.enforce(reduction in _REDUCTIONS,
                lambda: f"reduction must be one of {', '.join(_REDUCTIONS)}, got {reduction!r}")
    same_shape(ctx, "X", "Target")
    shape = ctx.input_shape("X") if reduction == "none" else (1,)
    ctx.set_output("Loss", shape, ctx.input_dtype("X"))


def _kldiv_terms(x, t):
    safe = np.where(t > 0, t, 1)
    return np.where(t > 0, t * (np.log(safe) - x), 0)


def _kldiv(attrs, x, t):
    terms, reduction = _kldiv_terms(x, t), attrs["reduction"]
    if reduction == "none":
        return terms.astype(x.dtype)
    total = terms.sum()
    if reduction == "batchmean":
        total = total / x.shape[0]
    elif reduction == "mean":
        total = total / max(terms.size, 1)
    return np.array([total], dtype=x.dtype)


def _kldiv_grad(attrs, x, t, dloss):
    g = np.where(t > 0, -t, 0)
    reduction = attrs["reduction"]
    if reduction == "none":
        return (g * dloss).astype(x.dtype)
    scale = float(dloss.reshape(-1)[0])
    if reduction == "batchmean":
        scale /= x.shape[0]
    elif reduction == "mean":
        scale /= max(x.size, 1)
    return (g * scale).astype(x.dtype)


_register("kldiv_loss", [In("X", "log-probabilities"), In("Target", "probabilities")],
          [Out("Loss", "X's shape for 'none', else [1]")],
          [Attr("reduction", "string", "mean", "none, batchmean, mean or sum")],
          _infer_kldiv, _kldiv, _kldiv_grad, ["X"], "Loss")


# -- margin_rank_loss / rank_loss ------------------------------------------------------------

def _infer_pairwise(a: str, b: str, outs: tuple[str, ...]):
    def infer(ctx):
        same_shape(ctx, a, b)
        same_shape(ctx, a, "Label")
        for o in outs:
            ctx.set_output(o, ctx.input_shape(a), ctx.input_dtype(a))

    return infer


def _margin_rank(attrs, x1, x2, label):
    raw = -label * (x1 - x2) + attrs["margin"]
    return np.maximum(raw, 0).astype(x1.dtype), (raw > 0).astype(x1.dtype)


def _margin_rank_grad(attrs, x1, x2, label, activated, dout):
    g = -label * activated * dout
    return g.astype(x1.dtype), (-g).astype(x2.dtype)


_register("margin_rank_loss", [In("X1", "[N, 1] scores"), In("X2", "[N, 1] scores"),
                               In("Label", "[N, 1], +1 or -1")],
          [Out("Out", "[N, 1]"), Out("Activated", "1 where the hinge is active")],
          [Attr("margin", "float", 0.1, "the margin")],
          _infer_pairwise("X1", "X2", ("Out", "Activated")), _margin_rank, _margin_rank_grad,
          ["X1", "X2"], "Out", keep=["Activated"])


def _rank(attrs, label, left, right):
    d = left - right
    return (np.logaddexp(0.0, d) - label * d).astype(left.dtype)


def _rank_grad(attrs, label, left, right, dout):
    g = (special.expit(left - right) - label) * dout
    return g.astype(left.dtype), (-g).astype(right.dtype)


def _infer_rank(ctx):
    same_shape(ctx, "Left", "Right")
    same_shape(ctx, "Left", "Label")
    ctx.set_output("Out", ctx.input_shape("Left"), ctx.input_dtype("Left"))


_register("rank_loss", [In("Label", "[N, 1] in [0, 1]"), In("Left", "[N, 1]"),
                        In("Right", "[N, 1]")],
          [Out("Out", "[N, 1]")], [], _infer_rank, _rank, _rank_grad, ["Left", "Right"], "Out")


# -- bpr_loss --------------------------------------------------------------------------------

def _infer_bpr(ctx):
    x, label = ctx.input_shape("X"), ctx.input_shape("Label")
    ctx.enforce(len(x) == 2, lambda: f"X must be [N, C], got {list(x)}")
    ctx.enforce(ctx.input_dtype("Label") in INTS, "Label must be int32 or int64")
    ctx.enforce(len(label) == 2 and label[1] in (1, -1), lambda: f"Label must be [N, 1], got "
                f"{list(label)}")
    ctx.set_output("Y", (x[0], 1), ctx.input_dtype("X"))


def _bpr_diffs(x, label):
    lab = label.reshape(-1).astype(np.int64)
    if lab.size and (lab.min() < 0 or lab.max() >= x.shape[1]):
        bad = int(lab.min()) if lab.min() < 0 else int(lab.max())
        raise KernelError(f"bpr_loss: Label holds {bad}, outside the item range [0, "
                          f"{x.shape[1]}) of X")
    pos = x[np.arange(len(x)), lab][:, None]
    others = np.ones_like(x, dtype=bool)
    others[np.arange(len(x)), lab] = False
    return pos - x, others, lab


def _bpr(attrs, x, label):
    diff, others, _ = _bpr_diffs(x, label)
    c = x.shape[1]
    terms = np.where(others, -np.logaddexp(0.0, -diff), 0)  # log(sigmoid(diff))
    return (-terms.sum(axis=1, keepdims=True) / (c - 1)).astype(x.dtype)


def _bpr_grad(attrs, x, label, dy):
    diff, others, lab = _bpr_diffs(x, label)
    c = x.shape[1]
    # d/d diff of -log(sigmoid(diff)) = -(1 - sigmoid(diff)) = -sigmoid(-diff)
    w = np.where(others, special.expit(-diff), 0) / (c - 1) * dy.reshape(-1, 1)
    dx = w.copy()  # d diff / d x_j = -1, times the minus sign of the loss
    dx[np.arange(len(x)), lab] = -w.sum(axis=1)
    return dx.astype(x.dtype)


_register("bpr_loss", [In("X", "[N, C] scores"), In("Label", "[N, 1] int, the positive item")],
          [Out("Y", "[N, 1]")], [], _infer_bpr, _bpr, _bpr_grad, ["X"], "Y")


# -- teacher_student_sigmoid_loss ------------------------------------------------------------

def _infer_tss(ctx):
    same_shape(ctx, "X", "Label")
    ctx.set_output("Y", ctx.input_shape("X"), ctx.input_dtype("X"))


def _s(x, z):
    return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))


def _tss_parts(label):
    """(click z, whether a teacher score exists, the teacher score)."""
    z = ((label >= -1) & (label < 0)) | (label >= 1)
    teacher = label >= 0
    score = np.where(label >= 1, label - 1, label)
    return z.astype(np.float64), teacher, score


def _tss(attrs, x, label):
    z, teacher, score = _tss_parts(label)
    return (_s(x, z) + np.where(teacher, _s(x, score), 0)).astype(x.dtype)


def _tss_grad(attrs, x, label, dy):
    z, teacher, score = _tss_parts(label)
    sig = special.expit(x)
    return ((sig - z + np.where(teacher, sig - score, 0)) * dy).astype(x.dtype)


_register("teacher_student_sigmoid_loss",
          [In("X", "[N, 1] logits"), In("Label", "[N, 1]: click and teacher score encoded")],
          [Out("Y", "[N, 1]")],
          [Attr("soft_max_up_bound", "float", 15.0, "accepted for Paddle's sake"),
           Attr("soft_max_lower_bound", "float", -15.0, "accepted for Paddle's sake")],
          _infer_tss, _tss, _tss_grad, ["X"], "Y")
