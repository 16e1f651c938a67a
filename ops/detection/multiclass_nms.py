"""multiclass_nms3: per-class non-maximum suppression over a batch of detections (what
PaddleDetection's exported models end with). Inference only.

BBoxes [N, M, 4] and Scores [N, C, M] (one score per class and box). For each image and
each class c other than background_label:

    candidates = boxes whose score > score_threshold, by score descending (ties: lower
                 index first), at most nms_top_k of them (-1: all)
    greedy NMS: keep a candidate when its IoU with every kept box is <= the threshold,
                which starts at nms_threshold and is multiplied by nms_eta after each
                kept box while it is > 0.5 (nms_eta < 1: adaptive NMS)

then, when keep_top_k > -1, the image keeps only its keep_top_k best detections over all
classes. Out holds one row [label, score, x1, y1, x2, y2] per detection, grouped by
class (ascending), each class by score; its LoD (and NmsRoisNum) gives the count per
image. Index holds each detection's box as a row of BBoxes viewed as [N * M, 4].
IoU with normalized=False measures sizes as x2 - x1 + 1.
The 2-D form (BBoxes [M, C, 4] / Scores [M, C] with RoisNum) is not implemented.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

multiclass_nms3 = register_op(
    "multiclass_nms3",
    inputs=[In("BBoxes", "[N, M, 4]"), In("Scores", "[N, C, M]"),
            In("RoisNum", "the 2-D form's boxes per image (not implemented)",
               dispensable=True)],
    outputs=[Out("Out", "[K, 6] rows [label, score, x1, y1, x2, y2], LoD: per image"),
             Out("Index", "int32 [K, 1]: each row's box in BBoxes viewed as [N * M, 4]"),
             Out("NmsRoisNum", "int32 [N]: detections per image", dispensable=True)],
    attrs=[Attr("score_threshold", "float", 0.0, "scores at or below it are dropped"),
           Attr("nms_top_k", "int", -1, "candidates per class before NMS (-1: all)"),
           Attr("keep_top_k", "int", -1, "detections per image after NMS (-1: all)"),
           Attr("nms_threshold", "float", 0.3, "the IoU above which a box is suppressed"),
           Attr("normalized", "bool", True, "boxes are normalised (no + 1 on sizes)"),
           Attr("nms_eta", "float", 1.0, "the adaptive threshold's decay"),
           Attr("background_label", "int", 0, "the class skipped (-1: none)")],
    key_inputs=["BBoxes"],
    doc=__doc__,
)


@multiclass_nms3.infer_shape
def _(ctx):
    boxes, scores = ctx.input_shape("BBoxes"), ctx.input_shape("Scores")
    ctx.enforce(not ctx.has_input("RoisNum"),
                "the 2-D form (RoisNum bound: BBoxes [M, C, 4], Scores [M, C]) is not "
                "implemented; only BBoxes [N, M, 4] with Scores [N, C, M]")
    ctx.enforce(len(boxes) == 3 and boxes[2] == 4,
                f"BBoxes must be [N, M, 4], got {shape_str(boxes)}")
    ctx.enforce(len(scores) == 3, f"Scores must be [N, C, M], got {shape_str(scores)}")
    ctx.enforce(boxes[1] < 0 or scores[2] < 0 or boxes[1] == scores[2],
                f"BBoxes {shape_str(boxes)} and Scores {shape_str(scores)} must hold the "
                f"same number of boxes M")
    ctx.set_output("Out", [-1, 6], ctx.input_dtype("BBoxes"))
    ctx.set_output_lod_level("Out", 1)
    ctx.set_output("Index", [-1, 1], np.int32)
    ctx.set_output_lod_level("Index", 1)
    if ctx.has_output("NmsRoisNum"):
        ctx.set_output("NmsRoisNum", [boxes[0]], np.int32)


def iou_matrix(a: np.ndarray, b: np.ndarray, normalized: bool) -> np.ndarray:
    """[len(a), len(b)] intersection over union; boxes that do not overlap give 0."""
    extra = 0.0 if normalized else 1.0
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1 + extra, 0, None) * np.clip(y2 - y1 + extra, 0, None)

    def area(t):
        w, h = t[:, 2] - t[:, 0] + extra, t[:, 3] - t[:, 1] + extra
        return np.where((w < 0) | (h < 0), 0.0, w * h)

    union = area(a)[:, None] + area(b)[None, :] - inter
    disjoint = (b[None, :, 0] > a[:, None, 2]) | (b[None, :, 2] < a[:, None, 0]) | \
        (b[None, :, 1] > a[:, None, 3]) | (b[None, :, 3] < a[:, None, 1])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(disjoint | (union <= 0), 0.0, inter / union)


def nms(boxes: np.ndarray, scores: np.ndarray, attrs) -> list[int]:
    """Greedy NMS of one class: the kept box indices, best first."""
    order = np.flatnonzero(scores > attrs["score_threshold"])
    order = order[np.argsort(-scores[order], kind="stable")]
    if attrs["nms_top_k"] > -1:
        order = order[:attrs["nms_top_k"]]
    if order.size == 0:
        return []
    iou = iou_matrix(boxes[order], boxes[order], attrs["normalized"])
    threshold, eta = attrs["nms_threshold"], attrs["nms_eta"]
    kept: list[int] = []  # positions in `order`; greedy NMS decides box by box
    for pos in range(order.size):
        if not kept or (iou[pos, kept] <= threshold).all():
            kept.append(pos)
            if eta < 1 and threshold > 0.5:
                threshold *= eta
    return order[kept].tolist()


def _one_image(boxes, scores, attrs):
    """(labels, box indices) of one image's detections, in output order."""
    picks = []  # (score, label, index)
    for c in range(scores.shape[0]):
        if c == attrs["background_label"]:
            continue
        picks += [(scores[c, i], c, i) for i in nms(boxes, scores[c], attrs)]
    if attrs["keep_top_k"] > -1 and len(picks) > attrs["keep_top_k"]:
        best = sorted(range(len(picks)), key=lambda k: -picks[k][0])[:attrs["keep_top_k"]]
        picks = [picks[k] for k in sorted(best, key=lambda k: (picks[k][1], k))]
    return [p[1] for p in picks], [p[2] for p in picks]


@multiclass_nms3.kernel(dtypes=FLOATS, lod=True)
def multiclass_nms3_kernel(attrs, bboxes, scores, rois_num):
    if rois_num is not None:
        raise ValueError("multiclass_nms3: the 2-D form (RoisNum) is not implemented")
    boxes, scores = bboxes.numpy(), scores.numpy()
    n, m = boxes.shape[:2]
    rows, indices, counts = [], [], []
    for b in range(n):  # images are independent; each one is vectorised inside
        labels, picked = _one_image(boxes[b], scores[b], attrs)
        labels, picked = np.asarray(labels, np.int64), np.asarray(picked, np.int64)
        rows.append(np.column_stack([labels.astype(boxes.dtype),
                                     scores[b][labels, picked].astype(boxes.dtype),
                                     boxes[b][picked].reshape(-1, 4)]))
        indices.append(b * m + picked)
        counts.append(picked.size)
    offsets = (np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),)
    out = np.concatenate(rows).reshape(-1, 6).astype(boxes.dtype)
    index = np.concatenate(indices).reshape(-1, 1).astype(np.int32)
    return (LoDTensor.unchecked(out, offsets), LoDTensor.unchecked(index, offsets),
            LoDTensor.unchecked(np.asarray(counts, np.int32)))
