"""The metric Fluid 1.7 keeps in layers.nn: mean_iou."""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import _op

__all__ = ["mean_iou"]


def mean_iou(input: Variable, label: Variable, num_classes: int):  # noqa: A002
    """(mean IoU [1], wrong counts [C], correct counts [C]) of int predictions."""
    return _op("mean_iou", {"Predictions": input, "Labels": label},
               {"OutMeanIou": "float32", "OutWrong": "int32", "OutCorrect": "int32"},
               {"num_classes": int(num_classes)})
