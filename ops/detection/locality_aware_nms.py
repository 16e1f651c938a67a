"""locality_aware_nms: EAST's NMS, merging neighbouring boxes before suppressing.

BBoxes [N, M, 4] (x1, y1, x2, y2), Scores [N, C, M]. Per image and class (not
background_label), as Paddle's CPU kernel:

1. merge: walking the boxes in order, a box whose IoU with the current one is >
   nms_threshold is merged into it (coordinates weighted by the two scores, the
   current score growing by the merged one); otherwise it becomes the current one.
   Paddle merges *in place* into the image's boxes and the class' scores: the boxes
   a later class sees are the ones the earlier classes merged, and Out reports the
   merged boxes and scores (kept, as Paddle's results depend on it);
2. the surviving boxes with score > score_threshold, best first (a stable sort on the
   score as float), the first nms_top_k (> -1);
3. greedy NMS (IoU <= nms_threshold keeps; eta shrinks the threshold while > 0.5);
4. keep_top_k (> -1) best of all classes.

IoU is Paddle's JaccardOverlap (+ 1 pixel sizes unless normalized). Out [K, 6] rows
(class, score, x1, y1, x2, y2) ordered by class, one LoD level; nothing kept in the
whole batch gives Paddle's [[-1]] with LoD [0, 1]. Paddle also takes 8/16/24/32-value
polygons (IoU by the gpc polygon clipper): not supported here yet, refused by name.
No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

POLYGON_SIZES = (8, 16, 24, 32)

locality_aware_nms = register_op(
    "locality_aware_nms",
    inputs=[In("BBoxes", "[N, M, 4]: (x1, y1, x2, y2)"),
            In("Scores", "[N, C, M]: each class' score of each box")],
    outputs=[Out("Out", "[K, 6], 1 LoD level: (class, score, x1, y1, x2, y2)")],
    attrs=[Attr("background_label", "int", -1, "a class left out (-1: none)"),
           Attr("score_threshold", "float", doc="merged scores above it are kept"),
           Attr("nms_top_k", "int", doc="candidates per class after merging (-1: all)"),
           Attr("nms_threshold", "float", 0.3, "IoU above it merges / suppresses"),
           Attr("nms_eta", "float", 1.0, "adaptive NMS factor"),
           Attr("keep_top_k", "int", doc="detections kept per image (-1: all)"),
           Attr("normalized", "bool", True, "sizes without the + 1 pixel")],
    key_inputs=["Scores"],
    doc=__doc__,
)


def _box_size_problem(size: int) -> str | None:
    if size in POLYGON_SIZES:
        return (f"BBoxes with {size} coordinates (polygons) are not supported yet "
                f"(Paddle's PolyIoU clips polygons with the gpc library); use [N, M, 4] boxes")
    if size != 4:
        return f"BBoxes' last dimension must be 4 (x1, y1, x2, y2), got {size}"
    return None


@locality_aware_nms.infer_shape
def _(ctx):
    boxes, scores = ctx.input_shape("BBoxes"), ctx.input_shape("Scores")
    ctx.enforce(len(boxes) == 3, lambda: f"BBoxes must be [N, M, 4], got {shape_str(boxes)}")
    ctx.enforce(len(scores) == 3, lambda: f"Scores must be [N, C, M], got {shape_str(scores)}")
    problem = _box_size_problem(boxes[2]) if boxes[2] >= 0 else None
    ctx.enforce(problem is None, problem or "")
    ctx.enforce(boxes[1] < 0 or scores[2] < 0 or boxes[1] == scores[2],
                lambda: f"BBoxes {shape_str(boxes)} and Scores {shape_str(scores)} must agree on M")
    ctx.enforce(boxes[0] < 0 or scores[0] < 0 or boxes[0] == scores[0],
                lambda: f"BBoxes {shape_str(boxes)} and Scores {shape_str(scores)} must agree on N")
    ctx.enforce(np.dtype(ctx.input_dtype("BBoxes")) == np.dtype(ctx.input_dtype("Scores")),
                lambda: f"BBoxes must have Scores' dtype {ctx.input_dtype('Scores')}, got "
                f"{ctx.input_dtype('BBoxes')}")
    # [-1, -1]: "nothing detected" is Paddle's [[-1]], one column
    ctx.set_output("Out", [-1, -1], ctx.input_dtype("Scores"))
    ctx.set_output_lod_level("Out", 1)


def _iou(a, b, normalized: bool):
    """Paddle's JaccardOverlap (nms_util.h) of two (x1, y1, x2, y2) rows."""
    t = a.dtype.type
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return t(0)
    extra = t(0 if normalized else 1)

    def area(box):
        if box[2] < box[0] or box[3] < box[1]:
            return t(0)
        return (box[2] - box[0] + extra) * (box[3] - box[1] + extra)

    inter = (min(a[2], b[2]) - max(a[0], b[0]) + extra) * \
        (min(a[3], b[3]) - max(a[1], b[1]) + extra)
    return inter / (area(a) + area(b) - inter)


def _one_class(boxes, scores, attrs):
    """Kept box indices, best first; merges into boxes and scores in place."""
    threshold, normalized = boxes.dtype.type(attrs["nms_threshold"]), attrs["normalized"]
    skip = np.ones(scores.size, bool)
    current = -1
    for i in range(scores.size):
        if current > -1 and _iou(boxes[i], boxes[current], normalized) > threshold:
            total = scores[i] + scores[current]
            with np.errstate(invalid="ignore", divide="ignore"):  # zero scores: NaN, as Paddle
                boxes[current] = (boxes[i] * scores[i] + boxes[current] * scores[current]) / total
            scores[current] += scores[i]
        else:
            if current > -1:
                skip[current] = False
            current = i
    if current > -1:
        skip[current] = False
    order = np.flatnonzero((scores > scores.dtype.type(attrs["score_threshold"])) & ~skip)
    order = order[np.argsort(-scores[order].astype(np.float32), kind="stable")]
    if attrs["nms_top_k"] > -1:
        order = order[:attrs["nms_top_k"]]
    kept: list[int] = []
    for idx in order:
        if all(_iou(boxes[idx], boxes[k], normalized) <= threshold for k in kept):
            kept.append(int(idx))
            if attrs["nms_eta"] < 1 and threshold > 0.5:
                threshold = threshold * boxes.dtype.type(attrs["nms_eta"])
    return kept


def _one_image(boxes, scores, attrs):
    """Rows (class, score, box) of one image, from copies it merges into."""
    boxes, scores = boxes.copy(), scores.copy()
    picked = {c: _one_class(boxes, scores[c], attrs) for c in range(scores.shape[0])
              if c != attrs["background_label"]}
    total = sum(len(v) for v in picked.values())
    if attrs["keep_top_k"] > -1 and total > attrs["keep_top_k"]:
        pairs = [(np.float32(scores[c, i]), c, i) for c in sorted(picked) for i in picked[c]]
        best = sorted(range(len(pairs)), key=lambda k: -pairs[k][0])[:attrs["keep_top_k"]]
        picked = {}
        for k in best:
            picked.setdefault(pairs[k][1], []).append(pairs[k][2])
    return [[c, scores[c, i], *boxes[i]] for c in sorted(picked) for i in picked[c]]


@locality_aware_nms.kernel(dtypes=FLOATS, lod=True)
def locality_aware_nms_kernel(attrs, bboxes, scores):
    boxes, score = bboxes.numpy(), scores.numpy()
    problem = _box_size_problem(boxes.shape[2])
    if problem:
        raise KernelError(f"locality_aware_nms: {problem}")
    if boxes.shape[:2] != (score.shape[0], score.shape[2]):
        raise KernelError(f"locality_aware_nms: BBoxes {shape_str(boxes.shape)} and Scores "
                          f"{shape_str(score.shape)} must agree on N and M")
    rows, counts = [], []
    for n in range(boxes.shape[0]):
        image = _one_image(boxes[n], score[n], attrs)
        rows += image
        counts.append(len(image))
    if not rows:  # Paddle's "nothing detected": one row holding -1
        return LoDTensor.unchecked(np.full((1, 1), -1, score.dtype),
                                   (np.array([0, 1], np.int64),))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return LoDTensor.unchecked(np.array(rows, score.dtype).reshape(-1, 6), (offsets,))
