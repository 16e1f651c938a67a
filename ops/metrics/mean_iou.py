"""mean_iou: per-class IoU = correct / (correct + wrong) of int predictions, and their mean
over classes that occur (OutWrong/OutCorrect the counts). No gradient.

InWrongs and InCorrects (each a list of [C] int32 counts, e.g. the previous batches')
are added to the counts before the IoU is taken, and the values of InMeanIou (a list
of [1] float32) are added to OutMeanIou, as Paddle's streaming evaluation uses them.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.registry import INTS, Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _infer_mean_iou(ctx):
    c = ctx.attr("num_classes")
    ctx.enforce(c >= 1, lambda: f"num_classes must be >= 1, got {c}")
    ctx.set_output("OutMeanIou", (1,), np.float32)
    ctx.set_output("OutWrong", (c,), np.int32)
    ctx.set_output("OutCorrect", (c,), np.int32)


def _mean_iou(attrs, pred, label, in_wrongs=None, in_corrects=None, in_mean_ious=None):
    c = attrs["num_classes"]
    for name, counts in (("InWrongs", in_wrongs), ("InCorrects", in_corrects)):
        for k, t in enumerate(counts or []):
            if np.asarray(t).size != c:
                raise KernelError(f"mean_iou: {name}[{k}] must hold num_classes = {c} counts, "
                                  f"got {np.asarray(t).size}")
    p, lab = pred.reshape(-1).astype(np.int64), label.reshape(-1).astype(np.int64)
    if p.size and (min(p.min(), lab.min()) < 0 or max(p.max(), lab.max()) >= c):
        raise KernelError(f"mean_iou: classes must lie in [0, {c})")
    right = p == lab
    correct = np.bincount(p[right], minlength=c)
    wrong = np.bincount(p[~right], minlength=c) + np.bincount(lab[~right], minlength=c)
    for t in in_wrongs or []:
        wrong = wrong + np.asarray(t).reshape(-1).astype(np.int64)
    for t in in_corrects or []:
        correct = correct + np.asarray(t).reshape(-1).astype(np.int64)
    denom = correct + wrong
    present = denom > 0
    iou = correct[present] / denom[present]
    mean = np.float32(iou.mean() if iou.size else 0.0)
    for t in in_mean_ious or []:
        mean += np.float32(np.asarray(t).reshape(-1)[0])
    return (np.array([mean], np.float32), wrong.astype(np.int32), correct.astype(np.int32))


register_simple(
    "mean_iou", [In("Predictions", "int class ids"), In("Labels", "int class ids"),
                 In("InWrongs", "[C] int32 wrong counts to add", duplicable=True,
                    dispensable=True),
                 In("InCorrects", "[C] int32 correct counts to add", duplicable=True,
                    dispensable=True),
                 In("InMeanIou", "[1] float32 mean IoUs to add", duplicable=True,
                    dispensable=True)],
    [Out("OutMeanIou", "[1] float32"), Out("OutWrong", "[C] int32"),
     Out("OutCorrect", "[C] int32")], [Attr("num_classes", "int", 2, "C")],
    _infer_mean_iou, _mean_iou, dtypes=INTS, doc=__doc__)
