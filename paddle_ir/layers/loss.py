"""Fluid 1.7's loss layers beyond cross entropy: one op each (ops/loss/losses.py), or composed
from other layers where Fluid composes them too (mse_loss, npair_loss, dice_loss)."""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.control_flow import equal
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.math import elementwise_div, mean, reduce_mean, reduce_sum, square
from paddle_ir.layers.nn import matmul, softmax_with_cross_entropy
from paddle_ir.layers.tensor import cast
from paddle_ir.layers.tensor_ops import reshape

__all__ = ["bpr_loss", "dice_loss", "huber_loss", "kldiv_loss", "log_loss", "margin_rank_loss",
           "mse_loss", "npair_loss", "rank_loss", "smooth_l1", "teacher_student_sigmoid_loss"]


def _loss(op_type: str, inputs: dict, outputs: list[str], attrs=None, name=None,
          dtype=None) -> list[Variable]:
    helper = LayerHelper(op_type, name)
    dtype = dtype or next(iter(inputs.values())).dtype
    outs = {slot: helper.create_variable_for_type_inference(dtype) for slot in outputs}
    helper.append_op(op_type, inputs=inputs, outputs=outs, attrs=attrs)
    return [outs[s] for s in outputs]


def huber_loss(input: Variable, label: Variable, delta: float) -> Variable:  # noqa: A002
    """r^2 / 2 for |r| <= delta, else delta * (|r| - delta / 2), r = label - input."""
    return _loss("huber_loss", {"X": input, "Y": label}, ["Out", "Residual"],
                 {"delta": float(delta)})[0]


def log_loss(input: Variable, label: Variable, epsilon: float = 1e-4,  # noqa: A002
             name=None) -> Variable:
    """-label log(input + eps) - (1 - label) log(1 - input + eps), per row."""
    return _loss("log_loss", {"Predicted": input, "Labels": label}, ["Loss"],
                 {"epsilon": float(epsilon)}, name)[0]


def smooth_l1(x: Variable, y: Variable, inside_weight=None, outside_weight=None,
              sigma: float | None = None) -> Variable:
    """[N, 1]: the smooth L1 distance of each row (see ops/loss/losses.py)."""
    inputs = {"X": x, "Y": y}
    if inside_weight is not None:
        inputs["InsideWeight"] = inside_weight
    if outside_weight is not None:
        inputs["OutsideWeight"] = outside_weight
    return _loss("smooth_l1_loss", inputs, ["Diff", "Out"],
                 {"sigma": 1.0 if sigma is None else float(sigma)})[1]


def kldiv_loss(x: Variable, target: Variable, reduction: str = "mean", name=None) -> Variable:
    """KL(target || exp(x)) terms, reduced by none, batchmean, mean or sum."""
    return _loss("kldiv_loss", {"X": x, "Target": target}, ["Loss"],
                 {"reduction": reduction}, name)[0]


def margin_rank_loss(label: Variable, left: Variable, right: Variable, margin: float = 0.1,
                     name=None) -> Variable:
    """max(0, -label * (left - right) + margin)."""
    return _loss("margin_rank_loss", {"X1": left, "X2": right, "Label": label},
                 ["Out", "Activated"], {"margin": float(margin)}, name, dtype=left.dtype)[0]


def rank_loss(label: Variable, left: Variable, right: Variable, name=None) -> Variable:
    """RankNet: log(1 + exp(left - right)) - label * (left - right)."""
    return _loss("rank_loss", {"Label": label, "Left": left, "Right": right}, ["Out"], None,
                 name, dtype=left.dtype)[0]


def bpr_loss(input: Variable, label: Variable, name=None) -> Variable:  # noqa: A002
    """Bayesian personalized ranking: -mean_{j != label} log sigmoid(x_label - x_j)."""
    return _loss("bpr_loss", {"X": input, "Label": label}, ["Y"], None, name)[0]


def teacher_student_sigmoid_loss(input: Variable, label: Variable,  # noqa: A002
                                 soft_max_up_bound: float = 15.0,
                                 soft_max_lower_bound: float = -15.0) -> Variable:
    """The click loss plus the distillation loss of a label encoding both (ops/loss/losses.py)."""
    return _loss("teacher_student_sigmoid_loss", {"X": input, "Label": label}, ["Y"],
                 {"soft_max_up_bound": float(soft_max_up_bound),
                  "soft_max_lower_bound": float(soft_max_lower_bound)})[0]


def mse_loss(input: Variable, label: Variable) -> Variable:  # noqa: A002
    """mean((input - label)^2)."""
    return reduce_mean(square(input - label))


def npair_loss(anchor: Variable, positive: Variable, labels: Variable,
               l2_reg: float = 0.002) -> Variable:
    """Fluid's N-pair loss: soft-label cross entropy of anchor . positive^T against the
    same-label matrix (rows normalized), plus l2_reg / 4 times the mean squared norms."""
    beta = 0.25
    column = reshape(labels, [-1, 1])
    row = reshape(labels, [1, -1])
    same = cast(equal(column, row), anchor.dtype)
    same = elementwise_div(same, reduce_sum(same, dim=1, keep_dim=True))
    l2 = (reduce_mean(reduce_sum(square(anchor), 1)) +
          reduce_mean(reduce_sum(square(positive), 1))) * (beta * l2_reg)
    similarity = matmul(anchor, positive, transpose_y=True)
    ce = softmax_with_cross_entropy(similarity, same, soft_label=True)
    return l2 + mean(reduce_sum(same * ce, 0))


def dice_loss(input: Variable, label: Variable, epsilon: float = 1e-5,  # noqa: A002
              name=None) -> Variable:
    """mean over the batch of 1 - 2 |X n Y| / (|X| + |Y| + eps), label one-hot encoded
    against input's last dim (label [..., 1] int)."""
    from paddle_ir.layers.tensor_more import range as range_

    classes = input.shape[-1]
    one_hot = cast(equal(label, range_(0, classes, 1, label.dtype)), input.dtype)
    dims = list(range(1, len(input.shape)))
    inse = reduce_sum(input * one_hot, dim=dims)
    denominator = reduce_sum(input, dim=dims) + reduce_sum(one_hot, dim=dims)
    score = (inse * -2.0) / (denominator + epsilon) + 1.0
    return reduce_mean(score)


def __getattr__(name: str):
    # a layer Fluid 1.x defines in this module but paddle-ir elsewhere (fluid_layout.py)
    from paddle_ir.layers.fluid_layout import attribute

    return attribute(__name__, name)
