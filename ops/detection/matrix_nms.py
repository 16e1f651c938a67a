"""matrix_nms: Matrix NMS (SOLOv2) over a batch of detections, as YOLO-style exports end
with (yolo_box then matrix_nms). Inference only.

BBoxes [N, M, 4], Scores [N, C, M]. For each image and each class c other than
background_label, rather than dropping overlapping boxes it decays their scores:

    candidates  boxes whose score > score_threshold, by score descending, at most
                nms_top_k of them (-1: all); call them 0..n-1 in that order
    iou[i, j]   IoU of candidates i and j (j < i); max_iou[j] = max over k < j of iou[j, k]
                (0 for the best candidate)
    decay[i]    min over j < i of (1 - iou[i, j]) / (1 - max_iou[j]),
                or exp((max_iou[j]^2 - iou[i, j]^2) * gaussian_sigma) with use_gaussian
                (1 for the best candidate)
    kept        candidates whose score * decay[i] > post_threshold, scored so

Then the image's detections over all classes are sorted by decayed score (descending)
and, when keep_top_k > -1, cut to keep_top_k. Out holds one row [label, decayed score,
x1, y1, x2, y2] per detection in that order (not grouped by class); Index the box's row
in BBoxes viewed as [N * M, 4]; RoisNum the count per image. As Paddle 3's kernel,
the outputs carry no LoD (RoisNum holds the counts); nothing kept gives [0, 6] / [0, 1].
IoU with normalized=False measures sizes as x2 - x1 + 1 (multiclass_nms.iou_matrix).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.detection.multiclass_nms import iou_matrix
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

matrix_nms = register_op(
    "matrix_nms",
    inputs=[In("BBoxes", "[N, M, 4]"), In("Scores", "[N, C, M]")],
    outputs=[Out("Out", "[K, 6] rows [label, decayed score, x1, y1, x2, y2]"),
             Out("Index", "int32 [K, 1]: each row's box in BBoxes viewed as [N * M, 4]"),
             Out("RoisNum", "int32 [N]: detections per image", dispensable=True)],
    attrs=[Attr("score_threshold", "float", 0.0, "scores at or below it are not candidates"),
           Attr("post_threshold", "float", 0.0, "decayed scores at or below it are dropped"),
           Attr("nms_top_k", "int", -1, "candidates per class (-1: all)"),
           Attr("keep_top_k", "int", -1, "detections per image (-1: all)"),
           Attr("normalized", "bool", True, "boxes are normalised (no + 1 on sizes)"),
           Attr("use_gaussian", "bool", False, "the Gaussian decay instead of the linear"),
           Attr("gaussian_sigma", "float", 2.0, "the Gaussian decay's sigma"),
           Attr("background_label", "int", 0, "the class skipped (-1: none)")],
    key_inputs=["BBoxes"],
    doc=__doc__,
)


@matrix_nms.infer_shape
def _(ctx):
    boxes, scores = ctx.input_shape("BBoxes"), ctx.input_shape("Scores")
    ctx.enforce(len(boxes) == 3 and boxes[2] == 4,
                lambda: f"BBoxes must be [N, M, 4], got {shape_str(boxes)}")
    ctx.enforce(len(scores) == 3, lambda: f"Scores must be [N, C, M], got {shape_str(scores)}")
    ctx.enforce(all(a < 0 or b < 0 or a == b for a, b in ((boxes[0], scores[0]),
                                                          (boxes[1], scores[2]))), lambda:
                f"BBoxes {shape_str(boxes)} and Scores {shape_str(scores)} must agree on the "
                f"images N and boxes M")
    ctx.set_output("Out", [-1, 6], ctx.input_dtype("BBoxes"))
    ctx.set_output("Index", [-1, 1], np.int32)
    if ctx.has_output("RoisNum"):
        ctx.set_output("RoisNum", [boxes[0]], np.int32)


def decayed(boxes: np.ndarray, scores: np.ndarray, attrs) -> tuple[np.ndarray, np.ndarray]:
    """One class: (kept box indices, their decayed scores), best first."""
    order = np.flatnonzero(scores > attrs["score_threshold"])
    order = order[np.argsort(-scores[order], kind="stable")]
    if attrs["nms_top_k"] > -1:
        order = order[:attrs["nms_top_k"]]
    if order.size == 0:
        return order, scores[order]
    iou = np.tril(iou_matrix(boxes[order], boxes[order], attrs["normalized"]), -1)
    max_iou = iou.max(axis=1)  # over the better candidates only (the lower triangle)
    if attrs["use_gaussian"]:
        decay = np.exp((max_iou[None, :] ** 2 - iou ** 2) * attrs["gaussian_sigma"])
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            decay = (1 - iou) / (1 - max_iou[None, :])
    below = np.tril(np.ones_like(iou, dtype=bool), -1)
    decay = np.where(below, decay, 1.0).min(axis=1, initial=1.0)
    score = (scores[order] * decay).astype(scores.dtype)
    keep = score > attrs["post_threshold"]
    return order[keep], score[keep]


@matrix_nms.kernel(dtypes=FLOATS)
def matrix_nms_kernel(attrs, bboxes, scores):
    n, m = bboxes.shape[:2]
    rows, indices, counts = [], [], []
    for b in range(n):
        labels, picked, decayed_scores = [], [], []
        for c in range(scores.shape[1]):
            if c == attrs["background_label"]:
                continue
            idx, sc = decayed(bboxes[b], scores[b, c], attrs)
            labels += [c] * idx.size
            picked.append(idx)
            decayed_scores.append(sc)
        picked = np.concatenate(picked) if picked else np.zeros(0, np.int64)
        ds = np.concatenate(decayed_scores) if decayed_scores else np.zeros(0, bboxes.dtype)
        labels = np.asarray(labels, np.int64)
        order = np.argsort(-ds, kind="stable")
        if attrs["keep_top_k"] > -1:
            order = order[:attrs["keep_top_k"]]
        rows.append(np.column_stack([labels[order].astype(bboxes.dtype), ds[order],
                                     bboxes[b][picked[order]].reshape(-1, 4)]))
        indices.append(b * m + picked[order])
        counts.append(order.size)
    out = np.concatenate(rows).reshape(-1, 6).astype(bboxes.dtype)
    index = np.concatenate(indices).reshape(-1, 1).astype(np.int32)
    return out, index, np.asarray(counts, np.int32)
