"""Metric layers with persistable state: auc (Fluid 1.7's layers.auc)."""

from __future__ import annotations

from paddle_ir.core.dtypes import from_numpy_dtype
from paddle_ir.framework import Variable, default_main_program, default_startup_program, unique_name
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.ops.metrics.auc import stat_shape

__all__ = ["auc"]


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


def __getattr__(name: str):
    # a layer Fluid 1.x defines in this module but paddle-ir elsewhere (fluid_layout.py)
    from paddle_ir.layers.fluid_layout import attribute

    return attribute(__name__, name)
