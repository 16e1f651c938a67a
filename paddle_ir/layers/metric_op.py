"""Fluid 1.7's layers.metric_op: accuracy, and auc with its persistable state."""

from __future__ import annotations

from paddle_ir.core.dtypes import from_numpy_dtype
from paddle_ir.framework import Variable, default_main_program, default_startup_program, unique_name
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.nn.dense import topk
from paddle_ir.ops.metrics.auc import stat_shape

__all__ = ["accuracy", "auc"]


def accuracy(input: Variable, label: Variable, k: int = 1, correct: Variable | None = None,  # noqa: A002
             total: Variable | None = None) -> Variable:
    """The fraction (float32, shape [1]) of rows whose label is among input's top k classes.

    `correct` and `total` (int32, shape [1]) receive the counts when given.
    """
    helper = LayerHelper("accuracy")
    values, indices = topk(input, k)
    acc = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    if correct is None:
        correct = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    if total is None:
        total = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op("accuracy", inputs={"Out": values, "Indices": indices, "Label": label},
                     outputs={"Accuracy": acc, "Correct": correct, "Total": total})
    return acc


def _zero_counts(prefix: str, shape) -> Variable:
    """A persistable int64 statistic in the main program, zeroed by the startup program."""
    name = unique_name.generate(prefix)
    var = default_main_program().global_block().create_var(
        name=name, shape=shape, dtype="int64", persistable=True, stop_gradient=True)
    startup = default_startup_program().global_block()
    init = startup.create_var(name=name, shape=shape, dtype="int64", persistable=True)
    startup.append_op("fill_constant", outputs={"Out": init},
                      attrs={"shape": list(shape), "value": 0.0,
                             "dtype": from_numpy_dtype(var.dtype)})
    return var


def auc(input: Variable, label: Variable, curve: str = "ROC",  # noqa: A002 - Fluid's name
        num_thresholds: int = 2 ** 12 - 1, topk: int = 1, slide_steps: int = 1):
    """(global AUC, batch AUC, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg]).

    `input` is [N, 2] (or [N, 1]) probabilities whose last column is the positive
    class; `label` is [N, 1] int64. The global AUC accumulates over every run
    since the startup program; the batch AUC covers the last `slide_steps`
    runs. The statistics are persistable, so a checkpoint keeps them. `topk`
    is accepted for Fluid's sake and unused there too.
    """
    helper = LayerHelper("auc")
    batch_auc = helper.create_variable_for_type_inference("float64", stop_gradient=True)
    global_auc = helper.create_variable_for_type_inference("float64", stop_gradient=True)
    batch_shape = stat_shape(num_thresholds, slide_steps)
    batch_pos = _zero_counts("auc_batch_stat_pos", batch_shape)
    batch_neg = _zero_counts("auc_batch_stat_neg", batch_shape)
    global_pos = _zero_counts("auc_stat_pos", stat_shape(num_thresholds, 0))
    global_neg = _zero_counts("auc_stat_neg", stat_shape(num_thresholds, 0))
    for out, pos, neg, steps in ((batch_auc, batch_pos, batch_neg, slide_steps),
                                 (global_auc, global_pos, global_neg, 0)):
        helper.append_op("auc", inputs={"Predict": input, "Label": label, "StatPos": pos,
                                        "StatNeg": neg},
                         outputs={"AUC": out, "StatPosOut": pos, "StatNegOut": neg},
                         attrs={"curve": curve, "num_thresholds": int(num_thresholds),
                                "slide_steps": int(steps)})
    return global_auc, batch_auc, [batch_pos, batch_neg, global_pos, global_neg]
