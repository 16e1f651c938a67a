"""retinanet_detection_output: decodes RetinaNet's FPN levels and runs multi-class NMS.

BBoxes [N, M_l, 4] (deltas), Scores [N, M_l, C] and Anchors [M_l, 4], one of each per
FPN level; ImInfo [N, 3] (height, width, scale). Per image, as Paddle's CPU kernel:

1. per level, the (anchor, class) pairs with score > score_threshold (> 0 on the last
   level), best first (a stable sort on the score as float), the first nms_top_k of them
   (nms_top_k > -1);
2. each decoded against its anchor (+ 1 pixel widths: centre + d * w, exp(dw) * w, the
   max corner - 1), divided by scale, clipped to [0, round(size / scale) - 1];
3. greedy NMS per class (IoU <= nms_threshold keeps; eta shrinks the threshold while it
   is above 0.5), then the kept detections of all classes best first (stable), the first
   keep_top_k.

Out [K, 6] rows (class + 1, score, x1, y1, x2, y2), one LoD level (each image's rows;
no detection gives [0, 6]). No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.detection.multiclass_nms import nms
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

retinanet_detection_output = register_op(
    "retinanet_detection_output",
    inputs=[In("BBoxes", "[N, M_l, 4] per level: box deltas", duplicable=True),
            In("Scores", "[N, M_l, C] per level: class scores", duplicable=True),
            In("Anchors", "[M_l, 4] per level", duplicable=True),
            In("ImInfo", "[N, 3]: each image's height, width, scale")],
    outputs=[Out("Out", "[K, 6], 1 LoD level: (class + 1, score, x1, y1, x2, y2)")],
    attrs=[Attr("score_threshold", "float", 0.05, "scores above it are kept (not last level)"),
           Attr("nms_top_k", "int", 1000, "candidates per level (-1: all)"),
           Attr("nms_threshold", "float", 0.3, "IoU above it suppresses"),
           Attr("nms_eta", "float", 1.0, "adaptive NMS factor"),
           Attr("keep_top_k", "int", 100, "detections kept per image")],
    key_inputs=["Scores"],
    doc=__doc__,
)


@retinanet_detection_output.infer_shape
def _(ctx):
    levels = ctx.input_count("BBoxes")
    ctx.enforce(levels >= 1, "BBoxes must hold at least one level")
    for slot in ("Scores", "Anchors"):
        ctx.enforce(ctx.input_count(slot) == levels,
                    lambda: f"{slot} must hold one tensor per level ({levels}), got "
                    f"{ctx.input_count(slot)}")
    dtype = ctx.input_dtype("Scores")
    for i in range(levels):
        boxes, scores = ctx.input_shape("BBoxes", i), ctx.input_shape("Scores", i)
        anchors = ctx.input_shape("Anchors", i)
        ctx.enforce(len(boxes) == 3 and boxes[2] in (-1, 4),
                    lambda: f"BBoxes[{i}] must be [N, M, 4], got {shape_str(boxes)}")
        ctx.enforce(len(scores) == 3,
                    lambda: f"Scores[{i}] must be [N, M, C], got {shape_str(scores)}")
        ctx.enforce(len(anchors) == 2 and anchors[1] in (-1, 4),
                    lambda: f"Anchors[{i}] must be [M, 4], got {shape_str(anchors)}")
        for a, b in ((boxes[1], scores[1]), (boxes[1], anchors[0]), (boxes[0], scores[0])):
            ctx.enforce(a < 0 or b < 0 or a == b, lambda:
                        f"level {i}: BBoxes {shape_str(boxes)}, Scores {shape_str(scores)} and "
                        f"Anchors {shape_str(anchors)} must agree on N and M")
        for slot in ("BBoxes", "Anchors"):
            ctx.enforce(np.dtype(ctx.input_dtype(slot, i)) == np.dtype(dtype),
                        lambda: f"{slot}[{i}] must have Scores' dtype {dtype}, got "
                        f"{ctx.input_dtype(slot, i)}")
    ctx.enforce(ctx.attr("keep_top_k") >= 0,
                lambda: f"keep_top_k must be >= 0 (Paddle's kernel cannot keep -1), got "
                f"{ctx.attr('keep_top_k')}")
    ctx.set_output("Out", [-1, 6], dtype)
    ctx.set_output_lod_level("Out", 1)


def _c_round(x):
    """C's round: halves away from zero (numpy rounds them to even)."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _decode(deltas, anchors, info):
    """Paddle's DeltaScoreToPrediction boxes: [K, 4] clipped to the unscaled image."""
    height, width, scale = info
    w = anchors[:, 2] - anchors[:, 0] + 1
    h = anchors[:, 3] - anchors[:, 1] + 1
    cx, cy = anchors[:, 0] + w / 2, anchors[:, 1] + h / 2
    tx, ty = deltas[:, 0] * w + cx, deltas[:, 1] * h + cy
    tw, th = np.exp(deltas[:, 2]) * w, np.exp(deltas[:, 3]) * h
    boxes = np.stack([tx - tw / 2, ty - th / 2, tx + tw / 2 - 1, ty + th / 2 - 1], axis=1)
    boxes = boxes / scale
    limit = np.array([width, height, width, height], deltas.dtype)
    limit = _c_round(limit / scale).astype(deltas.dtype) - 1
    return np.maximum(np.minimum(boxes, limit), 0).astype(deltas.dtype)


def _one_image(attrs, levels, n: int, info):
    """Rows (class, score, x1, y1, x2, y2) of image n."""
    dets: dict[int, list] = {}
    last = len(levels) - 1
    for lvl, (boxes, scores, anchors) in enumerate(levels):
        flat = scores[n].reshape(-1)
        threshold = flat.dtype.type(attrs["score_threshold"] if lvl < last else 0.0)
        picked = np.flatnonzero(flat > threshold)
        picked = picked[np.argsort(-flat[picked].astype(np.float32), kind="stable")]
        if attrs["nms_top_k"] > -1:
            picked = picked[:attrs["nms_top_k"]]
        classes = scores.shape[2]
        anchor = picked // classes
        decoded = _decode(boxes[n][anchor], anchors[anchor], info)
        for k, idx in enumerate(picked):
            dets.setdefault(int(idx % classes), []).append((decoded[k], flat[idx]))
    settings = {"score_threshold": -np.inf, "nms_top_k": -1, "normalized": False,
                "nms_threshold": attrs["nms_threshold"], "nms_eta": attrs["nms_eta"]}
    kept = []
    for c in sorted(dets):
        boxes = np.array([d[0] for d in dets[c]])
        scores = np.array([d[1] for d in dets[c]])
        for i in nms(boxes, scores.astype(np.float32), settings):
            kept.append((np.float32(scores[i]), c, boxes[i], scores[i]))
    order = sorted(range(len(kept)), key=lambda k: -kept[k][0])[:attrs["keep_top_k"]]
    return [[kept[k][1] + 1, kept[k][3], *kept[k][2]] for k in order]


@retinanet_detection_output.kernel(dtypes=FLOATS, lod=True)
def retinanet_detection_output_kernel(attrs, bboxes, scores, anchors, im_info):
    info = np.asarray(im_info.numpy())
    levels = [(b.numpy(), s.numpy(), a.numpy())
              for b, s, a in zip(bboxes, scores, anchors, strict=True)]
    n_images = levels[0][1].shape[0]
    classes = levels[0][1].shape[2]
    for i, (b, s, a) in enumerate(levels):
        if b.shape[:2] != s.shape[:2] or a.shape[0] != b.shape[1] or s.shape[0] != n_images \
                or s.shape[2] != classes:
            raise KernelError(f"retinanet_detection_output: level {i}'s BBoxes "
                              f"{shape_str(b.shape)}, Scores {shape_str(s.shape)} and Anchors "
                              f"{shape_str(a.shape)} must agree on N, M and C")
    if info.shape[0] != n_images:
        raise KernelError(f"retinanet_detection_output: ImInfo has {info.shape[0]} rows for "
                          f"{n_images} images")
    rows, counts = [], []
    for n in range(n_images):
        image = _one_image(attrs, levels, n, info[n])
        rows += image
        counts.append(len(image))
    dtype = levels[0][1].dtype
    out = np.array(rows, dtype).reshape(-1, 6)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return LoDTensor.unchecked(out, (offsets,))
