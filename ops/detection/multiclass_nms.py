"""multiclass_nms, multiclass_nms2 and multiclass_nms3: per-class non-maximum suppression
over a batch of detections (what PaddleDetection's exported models end with). Inference
only. The three share one kernel and differ in their outputs (and v3 in RoisNum):

    multiclass_nms    Out, with a LoD of one level: the detections per image
    multiclass_nms2   Out and Index, both with that LoD (Paddle 2.x)
    multiclass_nms3   Out, Index and NmsRoisNum (the count per image); paddle-ir keeps
                      Fluid's LoD on Out and Index too (Paddle 3's phi kernel sets none)

Two input forms. 3-D: BBoxes [N, M, 4] and Scores [N, C, M], one score per class and
box. 2-D (v3 with RoisNum [N], the boxes per image): BBoxes [M, C, 4] (a box per class)
and Scores [M, C], image i being the next RoisNum[i] rows. For each image and each
class c other than background_label:

    candidates = boxes whose score > score_threshold, by score descending (ties: lower
                 index first), at most nms_top_k of them (-1: all)
    greedy NMS: keep a candidate when its IoU with every kept box is <= the threshold,
                which starts at nms_threshold and is multiplied by nms_eta after each
                kept box while it is > 0.5 (nms_eta < 1: adaptive NMS)

then, when keep_top_k > -1, the image keeps only its keep_top_k best detections over all
classes. Out holds one row [label, score, x1, y1, x2, y2] per detection, grouped by
class (ascending), each class by score (2-D form: by box index, as Paddle). Index holds
each detection's box: 3-D, its row in BBoxes viewed as [N * M, 4]; 2-D, (row of
BBoxes) * C + label, its row in BBoxes viewed as [M * C, 4]. IoU with
normalized=False measures sizes as x2 - x1 + 1.
When no image keeps anything, multiclass_nms gives Out = [[-1]] with LoD [[0, 1]] (as
Paddle does); v2 and v3 give [0, 6] and [0, 1].
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [Attr("score_threshold", "float", 0.0, "scores at or below it are dropped"),
          Attr("nms_top_k", "int", -1, "candidates per class before NMS (-1: all)"),
          Attr("keep_top_k", "int", -1, "detections per image after NMS (-1: all)"),
          Attr("nms_threshold", "float", 0.3, "the IoU above which a box is suppressed"),
          Attr("normalized", "bool", True, "boxes are normalised (no + 1 on sizes)"),
          Attr("nms_eta", "float", 1.0, "the adaptive threshold's decay"),
          Attr("background_label", "int", 0, "the class skipped (-1: none)")]
_BOXES = [In("BBoxes", "[N, M, 4], or [M, C, 4] with RoisNum"),
          In("Scores", "[N, C, M], or [M, C] with RoisNum")]
_OUT = Out("Out", "[K, 6] rows [label, score, x1, y1, x2, y2], LoD: per image")
_INDEX = Out("Index", "int32 [K, 1]: each row's box in BBoxes viewed as rows of 4")

multiclass_nms = register_op(
    "multiclass_nms", inputs=_BOXES, outputs=[_OUT], attrs=_ATTRS, key_inputs=["BBoxes"],
    doc=__doc__)
multiclass_nms2 = register_op(
    "multiclass_nms2", inputs=_BOXES, outputs=[_OUT, _INDEX], attrs=_ATTRS,
    key_inputs=["BBoxes"], doc=__doc__)
multiclass_nms3 = register_op(
    "multiclass_nms3",
    inputs=[*_BOXES, In("RoisNum", "int32 [N]: the 2-D form's boxes per image",
                        dispensable=True)],
    outputs=[_OUT, _INDEX, Out("NmsRoisNum", "int32 [N]: detections per image",
                               dispensable=True)],
    attrs=_ATTRS, key_inputs=["BBoxes"], doc=__doc__)


def _infer(ctx):
    boxes, scores = ctx.input_shape("BBoxes"), ctx.input_shape("Scores")
    two_d = ctx.has_input("RoisNum") if ctx.op_type == "multiclass_nms3" else False
    if two_d:
        ctx.enforce(len(boxes) == 3 and boxes[2] == 4,
                    lambda: f"BBoxes must be [M, C, 4] with RoisNum, got {shape_str(boxes)}")
        ctx.enforce(len(scores) == 2, lambda: f"Scores must be [M, C] with RoisNum, got "
                                      f"{shape_str(scores)}")
        ctx.enforce(all(a < 0 or b < 0 or a == b for a, b in zip(boxes[:2], scores, strict=True)),
                    lambda: f"BBoxes {shape_str(boxes)} and Scores {shape_str(scores)} "
                    f"must agree on "
                    f"the boxes M and classes C")
        images = -1
    else:
        ctx.enforce(len(boxes) == 3 and boxes[2] == 4,
                    lambda: f"BBoxes must be [N, M, 4], got {shape_str(boxes)}")
        ctx.enforce(len(scores) == 3, lambda: f"Scores must be [N, C, M] (or [M, C] with RoisNum, "
                                      f"multiclass_nms3 only), got {shape_str(scores)}")
        ctx.enforce(boxes[1] < 0 or scores[2] < 0 or boxes[1] == scores[2], lambda:
                    f"BBoxes {shape_str(boxes)} and Scores {shape_str(scores)} must hold the "
                    f"same number of boxes M")
        images = boxes[0]
    ctx.set_output("Out", [-1, 6] if ctx.op_type != "multiclass_nms" else [-1, -1],
                   ctx.input_dtype("BBoxes"))
    ctx.set_output_lod_level("Out", 1)
    if ctx.has_output("Index"):
        ctx.set_output("Index", [-1, 1], np.int32)
        ctx.set_output_lod_level("Index", 1)
    if ctx.has_output("NmsRoisNum"):
        ctx.set_output("NmsRoisNum", [images], np.int32)


for _op in (multiclass_nms, multiclass_nms2, multiclass_nms3):
    _op.infer_shape(_infer)


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


def _one_image(boxes, scores, attrs, by_index: bool = False):
    """(labels, box indices) of one image's detections, in output order; boxes [C, m, 4]
    holds each class's boxes (one array broadcast over classes in the 3-D form). In the
    2-D form (`by_index`) Paddle lists each class's detections by box index, not score."""
    picks = []  # (score, label, index)
    for c in range(scores.shape[0]):
        if c == attrs["background_label"]:
            continue
        kept = nms(boxes[c], scores[c], attrs)
        picks += [(scores[c, i], c, i) for i in (sorted(kept) if by_index else kept)]
    if attrs["keep_top_k"] > -1 and len(picks) > attrs["keep_top_k"]:
        best = sorted(range(len(picks)), key=lambda k: -picks[k][0])[:attrs["keep_top_k"]]
        picks = [picks[k] for k in sorted(best, key=lambda k: (picks[k][1], k))]
    return [p[1] for p in picks], [p[2] for p in picks]


def _images(bboxes: np.ndarray, scores: np.ndarray, rois_num):
    """Per image: (boxes [C, m, 4] a box per class, scores [C, m], its first row)."""
    if rois_num is None:
        for b in range(bboxes.shape[0]):
            yield np.broadcast_to(bboxes[b], (scores.shape[1], *bboxes[b].shape)), \
                scores[b], b * bboxes.shape[1]
        return
    counts = np.asarray(rois_num).reshape(-1).astype(np.int64)
    if (counts < 0).any() or counts.sum() != bboxes.shape[0]:
        raise KernelError(f"multiclass_nms3: RoisNum {counts.tolist()} must be counts that "
                          f"add up to BBoxes' {bboxes.shape[0]} rows")
    start = 0
    for n in counts:
        yield bboxes[start:start + n].transpose(1, 0, 2), scores[start:start + n].T, start
        start += int(n)


def _suppress(attrs, bboxes, scores, rois_num):
    """(rows [K, 6], Index [K], counts per image) of the batch."""
    rows, indices, counts = [], [], []
    for boxes, image_scores, start in _images(bboxes, scores, rois_num):
        labels, picked = _one_image(boxes, image_scores, attrs, by_index=rois_num is not None)
        labels, picked = np.asarray(labels, np.int64), np.asarray(picked, np.int64)
        rows.append(np.column_stack([labels.astype(bboxes.dtype),
                                     image_scores[labels, picked].astype(bboxes.dtype),
                                     boxes[labels, picked].reshape(-1, 4)]))
        if rois_num is None:
            indices.append(start + picked)
        else:  # a row of BBoxes [M, C, 4] viewed as [M * C, 4]
            indices.append((start + picked) * scores.shape[1] + labels)
        counts.append(picked.size)
    out = np.concatenate(rows).reshape(-1, 6).astype(bboxes.dtype)
    index = np.concatenate(indices).reshape(-1, 1).astype(np.int32)
    return out, index, counts


def _offsets(counts) -> tuple[np.ndarray]:
    return (np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),)


@multiclass_nms.kernel(dtypes=FLOATS, lod=True)
def multiclass_nms_kernel(attrs, bboxes, scores):
    out, _, counts = _suppress(attrs, bboxes.numpy(), scores.numpy(), None)
    if not out.size:  # Paddle's "nothing detected": one row holding -1
        return LoDTensor.unchecked(np.full((1, 1), -1, out.dtype),
                                   (np.array([0, 1], np.int64),))
    return LoDTensor.unchecked(out, _offsets(counts))


@multiclass_nms2.kernel(dtypes=FLOATS, lod=True)
def multiclass_nms2_kernel(attrs, bboxes, scores):
    out, index, counts = _suppress(attrs, bboxes.numpy(), scores.numpy(), None)
    offsets = _offsets(counts)
    return LoDTensor.unchecked(out, offsets), LoDTensor.unchecked(index, offsets)


@multiclass_nms3.kernel(dtypes=FLOATS, lod=True)
def multiclass_nms3_kernel(attrs, bboxes, scores, rois_num):
    rois = None if rois_num is None else np.asarray(rois_num.numpy())
    out, index, counts = _suppress(attrs, bboxes.numpy(), scores.numpy(), rois)
    offsets = _offsets(counts)
    return (LoDTensor.unchecked(out, offsets), LoDTensor.unchecked(index, offsets),
            LoDTensor.unchecked(np.asarray(counts, np.int32)))
