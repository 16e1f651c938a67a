"""mean_iou: per-class IoU = correct / (correct + wrong) of int predictions, and their mean
over classes that occur (OutWrong/OutCorrect the counts). No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.registry import INTS, Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _infer_mean_iou(ctx):
    c = ctx.attr("num_classes")
    ctx.enforce(c >= 1, f"num_classes must be >= 1, got {c}")
    ctx.set_output("OutMeanIou", (1,), np.float32)
    ctx.set_output("OutWrong", (c,), np.int32)
    ctx.set_output("OutCorrect", (c,), np.int32)


def _mean_iou(attrs, pred, label):
    c = attrs["num_classes"]
    p, lab = pred.reshape(-1).astype(np.int64), label.reshape(-1).astype(np.int64)
    if p.size and (min(p.min(), lab.min()) < 0 or max(p.max(), lab.max()) >= c):
        raise KernelError(f"mean_iou: classes must lie in [0, {c})")
    right = p == lab
    correct = np.bincount(p[right], minlength=c)
    wrong = np.bincount(p[~right], minlength=c) + np.bincount(lab[~right], minlength=c)
    denom = correct + wrong
    present = denom > 0
    iou = correct[present] / denom[present]
    mean = iou.mean() if iou.size else 0.0
    return (np.array([mean], np.float32), wrong.astype(np.int32), correct.astype(np.int32))


register_simple(
    "mean_iou", [In("Predictions", "int class ids"), In("Labels", "int class ids")],
    [Out("OutMeanIou", "[1] float32"), Out("OutWrong", "[C] int32"),
     Out("OutCorrect", "[C] int32")], [Attr("num_classes", "int", 2, "C")],
    _infer_mean_iou, _mean_iou, dtypes=INTS, doc=__doc__)
