"""generate_proposals and generate_proposals_v2: a region proposal network's boxes.

Scores [N, A, H, W] (objectness), BboxDeltas [N, 4A, H, W], Anchors and Variances
[H, W, A, 4] (anchor_generator's). Per image, the H W A anchors in (h, w, a) order:

1. the pre_nms_topN best scores (all when <= 0);
2. decode: with o = 1 when pixel_offset (v1: always), anchor width aw = x2 - x1 + o and
   centre ax = x1 + aw / 2 (likewise y),
       cx = v0 dx aw + ax,  w = exp(min(v2 dw, log(1000 / 16))) aw   (likewise y, h)
       box = (cx - w / 2, cy - h / 2, cx + w / 2 - o, cy + h / 2 - o);
3. clip to [0, width - o] x [0, height - o] (ImShape [N, 2] = height, width for v2;
   ImInfo [N, 3] = height, width, scale for v1);
4. drop boxes narrower or lower than max(min_size, 1) (v1 measures (x2 - x1) / scale + 1)
   or, with o, whose centre x1 + (x2 - x1 + o) / 2 lies beyond the image's width (height);
5. greedy NMS at nms_thresh (eta shrinking it; IoU with +o sides), best first, keeping at
   most post_nms_topN (all when <= 0).

An image left with no box gives one zero box with score 0, as Paddle's kernel does.
RpnRois [R, 4] and RpnRoiProbs [R, 1] carry a LoD of the boxes per image; RpnRoisNum
(int32 [N]) the same counts. No gradient.
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.detection.nms_util import greedy_nms
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

BBOX_CLIP = math.log(1000.0 / 16.0)

_OUTPUTS = [Out("RpnRois", "[R, 4], LoD: boxes per image"),
            Out("RpnRoiProbs", "[R, 1], LoD: boxes per image"),
            Out("RpnRoisNum", "int32 [N]: boxes per image", dispensable=True)]
_ATTRS = [Attr("pre_nms_topN", "int", 6000, "best anchors decoded per image (<= 0: all)"),
          Attr("post_nms_topN", "int", 1000, "boxes kept per image (<= 0: all)"),
          Attr("nms_thresh", "float", 0.5, "NMS IoU threshold (<= 0: no NMS)"),
          Attr("min_size", "float", 0.1, "the least width and height kept"),
          Attr("eta", "float", 1.0, "adaptive NMS: the threshold's shrink factor")]


def _inputs(image_slot: str, image_doc: str):
    return [In("Scores", "[N, A, H, W]"), In("BboxDeltas", "[N, 4A, H, W]"),
            In(image_slot, image_doc), In("Anchors", "[H, W, A, 4]"),
            In("Variances", "[H, W, A, 4]")]


generate_proposals = register_op(
    "generate_proposals",
    inputs=_inputs("ImInfo", "[N, 3]: height, width, scale"), outputs=_OUTPUTS,
    attrs=_ATTRS, doc=__doc__)
generate_proposals_v2 = register_op(
    "generate_proposals_v2",
    inputs=_inputs("ImShape", "[N, 2]: height, width"), outputs=_OUTPUTS,
    attrs=_ATTRS + [Attr("pixel_offset", "bool", True, "sides measure x2 - x1 + 1")],
    doc="generate_proposals with ImShape [N, 2] and pixel_offset (see generate_proposals).")


def _infer(ctx, image_slot: str, image_cols: int):
    scores, deltas = ctx.input_shape("Scores"), ctx.input_shape("BboxDeltas")
    anchors, variances = ctx.input_shape("Anchors"), ctx.input_shape("Variances")
    image = ctx.input_shape(image_slot)
    ctx.enforce(len(scores) == 4, lambda: f"Scores must be [N, A, H, W], got {shape_str(scores)}")
    ctx.enforce(len(deltas) == 4,
                lambda: f"BboxDeltas must be [N, 4A, H, W], got {shape_str(deltas)}")
    ctx.enforce(anchors[-1:] in ((4,), (-1,)) and len(anchors) >= 2,
                lambda: f"Anchors must be [H, W, A, 4], got {shape_str(anchors)}")
    ctx.enforce(variances == anchors or -1 in variances or -1 in anchors,
                lambda: f"Variances {shape_str(variances)} must match Anchors {shape_str(anchors)}")
    ctx.enforce(len(image) == 2 and image[1] in (-1, image_cols),
                lambda: f"{image_slot} must be [N, {image_cols}], got {shape_str(image)}")
    known = all(d >= 0 for d in scores + deltas)
    if known:
        ctx.enforce(deltas[0] == scores[0] and deltas[1] == 4 * scores[1]
                    and deltas[2:] == scores[2:],
                    lambda: f"BboxDeltas {shape_str(deltas)} must be [N, 4A, H, W] for Scores "
                    f"{shape_str(scores)}")
        if all(d >= 0 for d in anchors):
            ctx.enforce(int(np.prod(anchors)) == 4 * int(np.prod(scores[1:])),
                        lambda: f"Anchors {shape_str(anchors)} must hold one box per score of an "
                        f"image ({int(np.prod(scores[1:]))})")
    ctx.enforce(scores[0] < 0 or image[0] < 0 or image[0] == scores[0],
                lambda: f"{image_slot} has {image[0]} images, Scores {scores[0]}")
    dtype = ctx.input_dtype("Scores")
    ctx.set_output("RpnRois", [-1, 4], dtype)
    ctx.set_output_lod_level("RpnRois", 1)
    ctx.set_output("RpnRoiProbs", [-1, 1], dtype)
    ctx.set_output_lod_level("RpnRoiProbs", 1)
    ctx.set_output("RpnRoisNum", [scores[0]], np.int32)


@generate_proposals.infer_shape
def _(ctx):
    _infer(ctx, "ImInfo", 3)


@generate_proposals_v2.infer_shape
def _(ctx):
    _infer(ctx, "ImShape", 2)


def decode(anchors: np.ndarray, deltas: np.ndarray, variances: np.ndarray,
           offset: float) -> np.ndarray:
    """[K, 4] boxes from anchors [K, 4] moved by deltas [K, 4] scaled by variances."""
    dtype = anchors.dtype.type
    aw = anchors[:, 2] - anchors[:, 0] + dtype(offset)
    ah = anchors[:, 3] - anchors[:, 1] + dtype(offset)
    ax = anchors[:, 0] + dtype(0.5) * aw
    ay = anchors[:, 1] + dtype(0.5) * ah
    cx = variances[:, 0] * deltas[:, 0] * aw + ax
    cy = variances[:, 1] * deltas[:, 1] * ah + ay
    w = np.exp(np.minimum(variances[:, 2] * deltas[:, 2], dtype(BBOX_CLIP))) * aw
    h = np.exp(np.minimum(variances[:, 3] * deltas[:, 3], dtype(BBOX_CLIP))) * ah
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - dtype(offset),
                     cy + h / 2 - dtype(offset)], axis=1)


def proposals_of_image(scores, deltas, anchors, variances, height, width, scale, attrs,
                       offset: float, scaled_size: bool):
    """(boxes [k, 4], scores [k]) of one image; scores [K] and deltas [K, 4] in anchor order."""
    dtype = scores.dtype.type
    order = np.argsort(-scores, kind="stable")
    top = attrs["pre_nms_topN"]
    if 0 < top < order.size:
        order = order[:top]
    boxes = decode(anchors[order], deltas[order], variances[order], offset)
    kept_scores = scores[order]
    boxes[:, 0::2] = np.maximum(np.minimum(boxes[:, 0::2], dtype(width - offset)), 0)
    boxes[:, 1::2] = np.maximum(np.minimum(boxes[:, 1::2], dtype(height - offset)), 0)
    ws = boxes[:, 2] - boxes[:, 0] + dtype(offset)
    hs = boxes[:, 3] - boxes[:, 1] + dtype(offset)
    keep = np.ones(boxes.shape[0], bool)
    if offset:
        x_ctr, y_ctr = boxes[:, 0] + ws / 2, boxes[:, 1] + hs / 2
        if scaled_size:
            ws = (boxes[:, 2] - boxes[:, 0]) / dtype(scale) + 1
            hs = (boxes[:, 3] - boxes[:, 1]) / dtype(scale) + 1
        keep = (x_ctr <= width) & (y_ctr <= height)
    min_size = max(attrs["min_size"], 1.0)
    keep &= (ws >= min_size) & (hs >= min_size)
    if not keep.any():
        return np.zeros((1, 4), boxes.dtype), np.zeros(1, boxes.dtype)
    boxes, kept_scores = boxes[keep], kept_scores[keep]
    if attrs["nms_thresh"] <= 0:
        return boxes, kept_scores
    picked = greedy_nms(boxes, kept_scores, attrs["nms_thresh"], attrs["eta"],
                        normalized=not offset, limit=attrs["post_nms_topN"])
    return boxes[picked], kept_scores[picked]


def _run(attrs, scores, deltas, image, anchors, variances, v1: bool):
    scores, deltas, image = scores.numpy(), deltas.numpy(), image.numpy()
    n, a, h, w = scores.shape
    if deltas.shape != (n, 4 * a, h, w):
        raise ValueError(f"BboxDeltas {list(deltas.shape)} must be [N, 4A, H, W] for Scores "
                         f"{list(scores.shape)}")
    anchors = anchors.numpy().reshape(-1, 4)
    variances = variances.numpy().reshape(-1, 4)
    if anchors.shape[0] != a * h * w or variances.shape != anchors.shape:
        raise ValueError(f"Anchors ({anchors.shape[0]} boxes) and Variances "
                         f"({variances.shape[0]}) must hold one box per score of an image "
                         f"({a * h * w})")
    if image.shape[0] != n:
        raise ValueError(f"{'ImInfo' if v1 else 'ImShape'} has {image.shape[0]} images, "
                         f"Scores {n}")
    offset = 1.0 if v1 or attrs.get("pixel_offset", True) else 0.0
    all_boxes, all_scores, counts = [], [], []
    for i in range(n):
        img_scores = scores[i].transpose(1, 2, 0).reshape(-1)
        img_deltas = deltas[i].transpose(1, 2, 0).reshape(-1, 4)
        height, width = float(image[i, 0]), float(image[i, 1])
        scale = float(image[i, 2]) if v1 else 1.0
        boxes, probs = proposals_of_image(img_scores, img_deltas, anchors, variances,
                                          height, width, scale, attrs, offset, v1)
        all_boxes.append(boxes)
        all_scores.append(probs)
        counts.append(boxes.shape[0])
    offsets = (np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),)
    rois = np.concatenate(all_boxes).astype(scores.dtype) if all_boxes else \
        np.zeros((0, 4), scores.dtype)
    probs = np.concatenate(all_scores).astype(scores.dtype).reshape(-1, 1) if all_scores \
        else np.zeros((0, 1), scores.dtype)
    return (LoDTensor.unchecked(rois, offsets), LoDTensor.unchecked(probs, offsets),
            LoDTensor.unchecked(np.asarray(counts, np.int32)))


@generate_proposals.kernel(dtypes=FLOATS, lod=True)
def generate_proposals_kernel(attrs, scores, deltas, im_info, anchors, variances):
    return _run(attrs, scores, deltas, im_info, anchors, variances, v1=True)


@generate_proposals_v2.kernel(dtypes=FLOATS, lod=True)
def generate_proposals_v2_kernel(attrs, scores, deltas, im_shape, anchors, variances):
    return _run(attrs, scores, deltas, im_shape, anchors, variances, v1=False)
