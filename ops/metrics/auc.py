"""auc: the area under the ROC curve from bucketed prediction counts, accumulated in
persistable statistics (no gradient).

Each row's positive probability p (Predict's last column, in [0, 1]) falls in
bucket floor(p * num_thresholds); rows with a non-zero label count in StatPos,
the others in StatNeg. AUC walks the buckets from the highest threshold down,
adding the trapezoids between successive (false positives, true positives)
points, and divides by (positives * negatives) (0 when either is 0).

slide_steps = 0: StatPos/StatNeg are [1, num_thresholds + 1] and accumulate
every batch (the global AUC). slide_steps = k > 0: they are flat
[(k + 1) * (num_thresholds + 1) + 1] int64: k ring windows of per-batch
counts, then their sum, then a step counter picking the window to overwrite;
AUC is over the last k batches (the batch AUC). As in Paddle, a batch of one
row with a negative label (a filtered instance) leaves everything unchanged.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

auc = register_op(
    "auc",
    inputs=[In("Predict", "[N, W] probabilities, the last column the positive class"),
            In("Label", "[N, 1] int64, non-zero = positive"),
            In("StatPos", "int64 bucket counts of positives (persistable)"),
            In("StatNeg", "int64 bucket counts of negatives (persistable)")],
    outputs=[Out("AUC", "[1] float64"), Out("StatPosOut", "StatPos updated (the same variable)"),
             Out("StatNegOut", "StatNeg updated (the same variable)")],
    attrs=[Attr("curve", "string", "ROC", "only ROC"),
           Attr("num_thresholds", "int", 2 ** 12 - 1, "buckets - 1"),
           Attr("slide_steps", "int", 1, "0: accumulate forever; k: over the last k batches")],
    key_inputs=["Predict"],
    doc=__doc__,
)


def stat_shape(num_thresholds: int, slide_steps: int) -> tuple[int, ...]:
    if slide_steps == 0:
        return (1, num_thresholds + 1)
    return ((slide_steps + 1) * (num_thresholds + 1) + 1,)


@auc.infer_shape
def _(ctx):
    ctx.enforce(ctx.attr("curve") == "ROC",
                lambda: f"curve must be 'ROC', got {ctx.attr('curve')!r}")
    thresholds, steps = ctx.attr("num_thresholds"), ctx.attr("slide_steps")
    ctx.enforce(thresholds >= 1, lambda: f"num_thresholds must be >= 1, got {thresholds}")
    ctx.enforce(steps >= 0, lambda: f"slide_steps must be >= 0, got {steps}")
    predict, label = ctx.input_shape("Predict"), ctx.input_shape("Label")
    ctx.enforce(len(predict) == 2, lambda: f"Predict must be [N, W], got shape {list(predict)}")
    ctx.enforce(predict[0] < 0 or label[0] < 0 or predict[0] == label[0],
                lambda: f"Predict and Label must have the same rows, got {list(predict)} and "
                f"{list(label)}")
    want = stat_shape(thresholds, steps)
    for slot in ("StatPos", "StatNeg"):
        shape = tuple(ctx.input_shape(slot))
        ctx.enforce(shape == want, lambda:
                    f"{slot} must have shape {list(want)} for num_thresholds={thresholds} and "
                    f"slide_steps={steps}, got {list(shape)}")
        ctx.set_output(slot + "Out", shape, np.int64)
    ctx.set_output("AUC", (1,), np.float64)


def bucket_counts(predict: np.ndarray, label: np.ndarray, num_thresholds: int):
    """(positives, negatives) per bucket, each [num_thresholds + 1] int64."""
    p = predict[:, -1]
    if p.size and (p.min() < 0 or p.max() > 1):
        raise KernelError(f"auc: Predict's positive column must lie in [0, 1], got values in "
                          f"[{p.min()}, {p.max()}]")
    bins = (p * num_thresholds).astype(np.int64)
    positive = label.reshape(-1) != 0
    size = num_thresholds + 1
    return (np.bincount(bins[positive], minlength=size).astype(np.int64),
            np.bincount(bins[~positive], minlength=size).astype(np.int64))


def roc_auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Trapezoids under (cumulative negatives, cumulative positives), highest bucket first."""
    tot_pos = np.cumsum(pos[::-1], dtype=np.float64)
    tot_neg = np.cumsum(neg[::-1], dtype=np.float64)
    prev_pos = np.concatenate([[0.0], tot_pos[:-1]])
    prev_neg = np.concatenate([[0.0], tot_neg[:-1]])
    area = float(np.sum((tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0))
    if tot_pos[-1] > 0 and tot_neg[-1] > 0:
        area /= tot_pos[-1] * tot_neg[-1]
    return area


def _accumulate(stat: np.ndarray, batch: np.ndarray, steps: int, size: int) -> np.ndarray:
    stat = stat.copy()
    if steps == 0:
        stat.reshape(-1)[:size] += batch
        return stat
    windows = stat[: steps * size].reshape(steps, size)
    total = stat[steps * size: (steps + 1) * size]
    current = int(stat[-1]) % steps
    total -= windows[current]
    windows[current] = batch
    total += batch
    return stat


@auc.kernel(dtypes=FLOATS)
def auc_kernel(attrs, predict, label, stat_pos, stat_neg):
    thresholds, steps = attrs["num_thresholds"], attrs["slide_steps"]
    size = thresholds + 1
    label = np.asarray(label)
    start = steps * size if steps else 0
    filtered = predict.shape[0] == 1 and label.reshape(-1)[0] < 0
    if not filtered:
        pos, neg = bucket_counts(predict, label, thresholds)
        stat_pos = _accumulate(stat_pos, pos, steps, size)
        stat_neg = _accumulate(stat_neg, neg, steps, size)
    value = roc_auc(stat_pos.reshape(-1)[start:start + size],
                    stat_neg.reshape(-1)[start:start + size])
    if filtered:
        return np.array([value], dtype=np.float64), stat_pos.copy(), stat_neg.copy()
    if steps:
        stat_pos[-1] += 1
        stat_neg[-1] += 1
    return np.array([value], dtype=np.float64), stat_pos, stat_neg
