"""The losses Fluid 1.7 keeps in layers.nn, not loss: log_loss, smooth_l1, dice_loss and
label_smooth.
"""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.control_flow.compare import equal
from paddle_ir.layers.helper import _loss
from paddle_ir.layers.nn.elementwise import reduce_mean, reduce_sum
from paddle_ir.layers.tensor import _op, cast
from paddle_ir.layers.tensor import range as range_

__all__ = ["dice_loss", "label_smooth", "log_loss", "smooth_l1"]


def label_smooth(label: Variable, prior_dist: Variable | None = None, epsilon: float = 0.1,
                 dtype="float32", name=None) -> Variable:
    """(1 - epsilon) label + epsilon * prior_dist (uniform 1 / K by default)."""
    inputs = {"X": label}
    if prior_dist is not None:
        inputs["PriorDist"] = prior_dist
    return _op("label_smooth", inputs, {"Out": None}, {"epsilon": float(epsilon)}, name)


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


def dice_loss(input: Variable, label: Variable, epsilon: float = 1e-5,  # noqa: A002
              name=None) -> Variable:
    """mean over the batch of 1 - 2 |X n Y| / (|X| + |Y| + eps), label one-hot encoded
    against input's last dim (label [..., 1] int)."""
    classes = input.shape[-1]
    one_hot = cast(equal(label, range_(0, classes, 1, label.dtype)), input.dtype)
    dims = list(range(1, len(input.shape)))
    inse = reduce_sum(input * one_hot, dim=dims)
    denominator = reduce_sum(input, dim=dims) + reduce_sum(one_hot, dim=dims)
    score = (inse * -2.0) / (denominator + epsilon) + 1.0
    return reduce_mean(score)
