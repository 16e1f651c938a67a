"""center_loss (+ _grad): Diff = X - Centers[label]; Loss = |Diff|^2 / 2 per row; with
update_center, CentersOut[c] = Centers[c] + rate * sum_{i: label_i = c} Diff_i / (1 + n_c).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.loss.sampled_softmax import _labels
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _infer_center(ctx):
    x, c = ctx.input_shape("X"), ctx.input_shape("Centers")
    ctx.enforce(len(x) == 2 and len(c) == 2 and (x[1] < 0 or c[1] < 0 or x[1] == c[1]),
                lambda: f"X [N, D] and Centers [C, D] expected, got {list(x)} and {list(c)}")
    ctx.set_output("SampleCenterDiff", x, ctx.input_dtype("X"))
    ctx.set_output("Loss", (x[0], 1), ctx.input_dtype("X"))
    ctx.set_output("CentersOut", c, ctx.input_dtype("Centers"))


def _center(attrs, x, label, centers, rate):
    lab = _labels(label, centers.shape[0], "center_loss")
    diff = x - centers[lab]
    loss = 0.5 * np.sum(diff * diff, axis=1, keepdims=True)
    new = centers.copy()
    if attrs["need_update"]:
        count = np.bincount(lab, minlength=centers.shape[0])
        total = np.zeros_like(centers)
        np.add.at(total, lab, diff)
        new += float(np.asarray(rate).reshape(-1)[0]) * total / (1 + count)[:, None]
    return diff, loss, new


register_simple(
    "center_loss", [In("X", "[N, D] features"), In("Label", "[N, 1] int"),
                    In("Centers", "[C, D] class centers (persistable)"),
                    In("CenterUpdateRate", "[1] alpha")],
    [Out("SampleCenterDiff", "X - Centers[label]"), Out("Loss", "[N, 1]"),
     Out("CentersOut", "the updated centers (the Centers variable)")],
    [Attr("cluster_num", "int", 0, "C"), Attr("need_update", "bool", True, "move the centers")],
    _infer_center, _center,
    backward=lambda attrs, x, label, centers, rate, diff, dloss: diff * dloss.reshape(-1, 1),
    wrt=["X"], out_slot="Loss", keep=["SampleCenterDiff"], doc=__doc__)
