"""What rpn_target_assign and retinanet_target_assign share: Paddle's anchor targets.

Paddle's rpn_target_assign_op.cc holds both ops and these steps (FilterStraddleAnchor,
FilterCrowdGt, ScoreAssign, BoxToDelta); they are written once here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.detection.iou_similarity import pairwise_iou
from paddle_ir.ops.detection.reservoir_sampling import reservoir_sample


def box_to_delta(anchors: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Paddle's BoxToDelta (pixel widths, no weights): [K, 4] (dx, dy, log dw, log dh)."""
    aw, ah = anchors[:, 2] - anchors[:, 0] + 1, anchors[:, 3] - anchors[:, 1] + 1
    bw, bh = boxes[:, 2] - boxes[:, 0] + 1, boxes[:, 3] - boxes[:, 1] + 1
    ax, ay = anchors[:, 0] + aw / 2, anchors[:, 1] + ah / 2
    bx, by = boxes[:, 0] + bw / 2, boxes[:, 1] + bh / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.stack([(bx - ax) / aw, (by - ay) / ah, np.log(bw / aw), np.log(bh / ah)],
                        axis=1).astype(anchors.dtype)


def inside_anchors(anchors: np.ndarray, height, width, straddle: float) -> np.ndarray:
    if straddle < 0:
        return np.arange(anchors.shape[0])
    t = anchors.dtype.type(straddle)
    return np.flatnonzero((anchors[:, 0] >= -t) & (anchors[:, 1] >= -t)
                          & (anchors[:, 2] < width + t) & (anchors[:, 3] < height + t))


def score_assign(overlap: np.ndarray, positive: float, negative: float, batch: int,
                 fraction: float, seed: int | None):
    """Paddle's ScoreAssign over [inside anchors, boxes] IoUs.

    Returns (location rows, their inside weights, foreground rows, background rows).
    Sampling only when fraction > 0 and batch > 0 (seed None: the first candidates).
    """
    n_anchor, n_gt = overlap.shape
    dtype = overlap.dtype.type
    if n_gt:
        anchor_max = overlap.max(axis=1)
        near_best = (np.abs(overlap - overlap.max(axis=0)) < dtype(np.float32(1e-5))).any(axis=1)
    else:  # Eigen's max over nothing is -inf: every anchor is background
        anchor_max = np.full(n_anchor, -np.inf, overlap.dtype)
        near_best = np.zeros(n_anchor, bool)
    fg_cand = np.flatnonzero(near_best | (anchor_max >= dtype(positive)))
    bg_cand = np.flatnonzero(anchor_max < dtype(negative))
    fraction = np.float32(fraction)
    sampling = fraction > 0 and batch > 0
    fg = fg_cand.tolist()
    if sampling:
        fg = reservoir_sample(fg, int(fraction * np.float32(batch)), seed)
    bg = bg_cand.tolist()
    if sampling:
        bg = reservoir_sample(bg, batch - len(fg), seed)
    label = np.full(n_anchor, -1, np.int64)
    label[fg] = 1
    placeholders = int(np.count_nonzero(label[bg] == 1))
    label[bg] = 0
    fg_rows, bg_rows = np.flatnonzero(label == 1), np.flatnonzero(label == 0)
    location = np.concatenate([np.full(placeholders, fg[0] if fg else 0, np.int64), fg_rows])
    weights = np.concatenate([np.zeros(placeholders), np.ones(fg_rows.size)])
    return location.astype(np.int64), weights, fg_rows, bg_rows


def image_slices(op_type: str, gt_boxes, per_box: dict, n_images: int):
    """[(image i's rows of GtBoxes, (its rows of each per_box input, flattened))]."""
    gt_off = gt_boxes.offsets[-1]
    if gt_off.size - 1 != n_images:
        raise KernelError(f"{op_type}: GtBoxes' LoD has {gt_off.size - 1} images, "
                          f"but ImInfo has {n_images} rows")
    values = []
    for slot, tensor in per_box.items():
        off = tensor.offsets[-1]
        if not np.array_equal(np.diff(gt_off), np.diff(off)):
            raise KernelError(f"{op_type}: {slot}'s LoD {off.tolist()} must give each image "
                              f"as many rows as GtBoxes' {gt_off.tolist()}")
        flat = np.asarray(tensor.numpy()).reshape(-1)
        if flat.size != gt_boxes.shape[0]:
            raise KernelError(f"{op_type}: {slot} has {flat.size} values for "
                              f"{gt_boxes.shape[0]} GtBoxes (one each)")
        values.append(flat)
    return [(slice(gt_off[i], gt_off[i + 1]), tuple(v[gt_off[i]:gt_off[i + 1]] for v in values))
            for i in range(n_images)]




@dataclass
class ImageTargets:
    """One image's targets: indices count from i * A over all anchors."""

    location: np.ndarray   # anchors given a box target (placeholders first)
    weights: np.ndarray    # [len(location)] inside weight, 0 for a placeholder
    deltas: np.ndarray     # [len(location), 4]
    fg: np.ndarray         # foreground anchors, ascending
    bg: np.ndarray         # background anchors, ascending
    fg_box: np.ndarray     # each foreground's best box among the image's boxes
    per_box: tuple         # the image's rows of each per-box input (crowd ones dropped)


def assign_images(op_type: str, anchors: np.ndarray, gt_boxes, per_box: dict, info,
                  straddle: float, positive: float, negative: float, batch: int,
                  fraction: float, seed: int | None) -> list[ImageTargets]:
    """Per image: straddle filter, crowd filter (per_box's first entry is IsCrowd),
    scaled boxes, IoU, ScoreAssign, deltas."""
    boxes, out = gt_boxes.numpy(), []
    for i, (rows, values) in enumerate(image_slices(op_type, gt_boxes, per_box, info.shape[0])):
        height, width, scale = info[i]
        inside = inside_anchors(anchors, height, width, straddle)
        keep = values[0] == 0
        gts = boxes[rows][keep] * scale
        overlap = pairwise_iou(anchors[inside], gts, normalized=False)
        location, weights, fg, bg = score_assign(overlap, positive, negative, batch, fraction,
                                                 seed)
        best = overlap.argmax(axis=1) if gts.shape[0] else np.zeros(inside.size, np.int64)
        base = i * anchors.shape[0]
        out.append(ImageTargets(
            location=inside[location] + base, weights=weights,
            deltas=box_to_delta(anchors[inside[location]], gts[best[location]]),
            fg=inside[fg] + base, bg=inside[bg] + base, fg_box=best[fg],
            per_box=tuple(v[keep] for v in values)))
    return out


def lod_outputs(images: list[ImageTargets], labels: list[np.ndarray], dtype):
    """(LocationIndex, ScoreIndex, TargetBBox, TargetLabel, BBoxInsideWeight), 1 LoD level."""
    def joined(parts, tail, out_dtype):
        offsets = np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int64)
        data = np.concatenate([np.zeros((0, *tail)), *[np.reshape(p, (-1, *tail))
                                                        for p in parts]])
        return LoDTensor.unchecked(data.astype(out_dtype), (offsets,))

    return (joined([im.location for im in images], (), np.int32),
            joined([np.concatenate([im.fg, im.bg]) for im in images], (), np.int32),
            joined([im.deltas for im in images], (4,), dtype),
            joined(labels, (1,), np.int32),
            joined([np.repeat(im.weights[:, None], 4, axis=1) for im in images], (4,), dtype))
