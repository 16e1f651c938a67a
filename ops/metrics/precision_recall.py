"""precision_recall: per-class true/false positives and negatives of top-1 predictions,
and macro and micro precision, recall and F1 over them (no gradient).

For each row i with predicted class Indices[i], true class Labels[i] and weight w
(Weights[i], else 1), the batch states [class_number, 4] = (TP, FP, TN, FN) get:

    predicted == true:   TP[pred] += w;  TN[c] += w for every class c but pred
    otherwise:           FP[pred] += w;  FN[true] += w;  TN[c] += w for every other c

    BatchMetrics    = metrics(batch states)
    AccumStatesInfo = batch states + StatesInfo (when given)
    AccumMetrics    = metrics(AccumStatesInfo)

metrics = [macro precision, macro recall, macro F1, micro precision, micro recall,
micro F1]: precision tp / (tp + fp) (1 when both are 0), recall tp / (tp + fn) (1
when both are 0), F1 2 p r / (p + r) (0 when both are 0); macro averages the
per-class precision and recall over the classes and takes F1 of the averages.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

precision_recall = register_op(
    "precision_recall",
    inputs=[In("MaxProbs", "[N, 1] the top-1 probabilities (their dtype is the kernel's)"),
            In("Indices", "[N, 1] int predicted classes"),
            In("Labels", "[N, 1] int true classes"),
            In("Weights", "[N, 1] row weights", dispensable=True),
            In("StatesInfo", "[class_number, 4] states accumulated so far", dispensable=True)],
    outputs=[Out("BatchMetrics", "[6]"), Out("AccumMetrics", "[6]"),
             Out("AccumStatesInfo", "[class_number, 4]: TP, FP, TN, FN per class")],
    attrs=[Attr("class_number", "int", 1, "the number of classes")],
    key_inputs=["MaxProbs"],
    doc=__doc__,
)


@precision_recall.infer_shape
def _(ctx):
    n = ctx.input_shape("MaxProbs")
    ctx.enforce(len(n) == 2 and n[1] in (1, -1),
                lambda: f"MaxProbs must be [N, 1], got {shape_str(n)}")
    for slot in ("Indices", "Labels", "Weights"):
        if ctx.has_input(slot):
            shape = ctx.input_shape(slot)
            ctx.enforce(len(shape) == 2 and shape[1] in (1, -1),
                        lambda: f"{slot} must be [N, 1], got {shape_str(shape)}")
    classes = ctx.attr("class_number")
    ctx.enforce(classes >= 1, lambda: f"class_number must be >= 1, got {classes}")
    if ctx.has_input("StatesInfo"):
        states = ctx.input_shape("StatesInfo")
        ctx.enforce(list(states) in ([classes, 4], [-1, 4]),
                    lambda: f"StatesInfo must be [{classes}, 4], got {shape_str(states)}")
    dtype = ctx.input_dtype("MaxProbs")
    ctx.set_output("BatchMetrics", (6,), dtype)
    ctx.set_output("AccumMetrics", (6,), dtype)
    ctx.set_output("AccumStatesInfo", (classes, 4), dtype)


def _ratio(num, other):
    return num / (num + other) if num > 0 or other > 0 else 1.0


def _f1(p, r):
    return 2 * p * r / (p + r) if p > 0 or r > 0 else 0.0


def metrics(states: np.ndarray) -> np.ndarray:
    tp, fp, fn = states[:, 0], states[:, 1], states[:, 3]
    macro_p = np.mean([_ratio(a, b) for a, b in zip(tp, fp, strict=True)])
    macro_r = np.mean([_ratio(a, b) for a, b in zip(tp, fn, strict=True)])
    micro_p, micro_r = _ratio(tp.sum(), fp.sum()), _ratio(tp.sum(), fn.sum())
    return np.asarray([macro_p, macro_r, _f1(macro_p, macro_r), micro_p, micro_r,
                       _f1(micro_p, micro_r)], states.dtype)


@precision_recall.kernel(dtypes=FLOATS)
def precision_recall_kernel(attrs, max_probs, indices, labels, weights, states_info):
    classes = attrs["class_number"]
    pred, true = indices.reshape(-1).astype(np.int64), labels.reshape(-1).astype(np.int64)
    for name, values in (("Indices", pred), ("Labels", true)):
        bad = (values < 0) | (values >= classes)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise KernelError(f"precision_recall: {name}[{first}] = {int(values[first])} is "
                              f"outside [0, {classes}) (class_number)")
    dtype = max_probs.dtype
    w = np.ones(len(pred), dtype) if weights is None else weights.reshape(-1).astype(dtype)
    states = np.zeros((classes, 4), dtype)
    hit = pred == true
    np.add.at(states[:, 0], pred[hit], w[hit])
    np.add.at(states[:, 1], pred[~hit], w[~hit])
    np.add.at(states[:, 3], true[~hit], w[~hit])
    states[:, 2] += w.sum(dtype=dtype)
    np.add.at(states[:, 2], pred, -w)
    np.add.at(states[:, 2], true[~hit], -w[~hit])
    batch = metrics(states)
    if states_info is not None:
        states = states + states_info
    return batch, metrics(states), states
