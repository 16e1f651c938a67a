"""rpn_target_assign: samples RPN training anchors and their targets (Faster R-CNN).

Anchor [A, 4] (x1, y1, x2, y2, pixels), GtBoxes [G, 4] and IsCrowd int32 [G, 1] with one
LoD level (image i's boxes), ImInfo [N, 3] (height, width, scale). Per image i, as
Paddle's CPU kernel does it:

1. inside anchors: all if rpn_straddle_thresh < 0, else those with x1, y1 >= -t,
   x2 < width + t, y2 < height + t;
2. the non-crowd boxes (IsCrowd == 0), times the image's scale; IoU between inside
   anchors and those boxes with the + 1 pixel convention;
3. foreground candidates: anchors whose IoU with some box is within 1e-5 of that box's
   best IoU, or whose best IoU >= rpn_positive_overlap; sampled down to
   int(rpn_fg_fraction * rpn_batch_size_per_im); background candidates (best IoU <
   rpn_negative_overlap) sampled down to rpn_batch_size_per_im - foregrounds (no
   sampling when rpn_fg_fraction or rpn_batch_size_per_im is <= 0);
4. a sampled background that was also a foreground becomes background, and its place
   in LocationIndex is taken by the first sampled foreground with BBoxInsideWeight 0
   (Paddle's Detectron-matching quirk, kept);
5. LocationIndex: those placeholders, then the foregrounds ascending; ScoreIndex: the
   foregrounds then the backgrounds, ascending; TargetLabel 1 / 0 (int32 [F + B, 1]);
   TargetBBox: the deltas (dx, dy, log dw, log dh, + 1 pixel widths) from each location
   anchor to its best box; indices count from i * A. Each output has one LoD level.

Sampling (use_random): Paddle seeds std::minstd_rand from std::random_device on every
run, so its draws cannot be reproduced; here fix_seed with `seed` (Paddle's older spelling
of this op's attributes) gives Paddle's draws for that seed (reservoir_sampling.py), and
without fix_seed a seed is drawn afresh per run, as Paddle does. use_random False keeps
the first candidates. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

from .iou_similarity import pairwise_iou
from .reservoir_sampling import reservoir_sample

OUTPUTS = ("LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel", "BBoxInsideWeight")

rpn_target_assign = register_op(
    "rpn_target_assign",
    inputs=[In("Anchor", "[A, 4]: the anchors (x1, y1, x2, y2)"),
            In("GtBoxes", "[G, 4], 1 LoD level: each image's ground-truth boxes"),
            In("IsCrowd", "int32 [G, 1], 1 LoD level: 1 for a crowd box (ignored)"),
            In("ImInfo", "[N, 3]: each image's height, width, scale")],
    outputs=[Out("LocationIndex", "int32 [F]: the anchors given a box target"),
             Out("ScoreIndex", "int32 [F + B]: the foreground then background anchors"),
             Out("TargetBBox", "[F, 4]: box deltas"),
             Out("TargetLabel", "int32 [F + B, 1]: 1 foreground, 0 background"),
             Out("BBoxInsideWeight", "[F, 4]: 0 for a placeholder location, else 1")],
    attrs=[Attr("rpn_batch_size_per_im", "int", 256, "anchors sampled per image"),
           Attr("rpn_straddle_thresh", "float", 0.0,
                "drop anchors beyond the image by more (< 0: keep all)"),
           Attr("rpn_positive_overlap", "float", 0.7, "IoU making an anchor foreground"),
           Attr("rpn_negative_overlap", "float", 0.3, "IoU below which it is background"),
           Attr("rpn_fg_fraction", "float", 0.25, "the foreground share of the sample"),
           Attr("use_random", "bool", True, "sample at random (else the first ones)"),
           Attr("fix_seed", "bool", False, "draw from `seed` (the same sample every run)"),
           Attr("seed", "int", 0, "the minstd_rand seed used when fix_seed")],
    key_inputs=["Anchor"],
    doc=__doc__,
)


@rpn_target_assign.infer_shape
def _(ctx):
    for slot, cols in (("Anchor", 4), ("GtBoxes", 4), ("ImInfo", 3)):
        shape = ctx.input_shape(slot)
        ctx.enforce(len(shape) == 2 and shape[1] in (-1, cols),
                    f"{slot} must be [*, {cols}], got {shape_str(shape)}")
    for slot in ("GtBoxes", "IsCrowd"):
        ctx.enforce(ctx.input_lod_level(slot) == 1,
                    f"{slot} must have 1 LoD level (each image's boxes), got "
                    f"{ctx.input_lod_level(slot)}")
    ctx.enforce(np.dtype(ctx.input_dtype("IsCrowd")) == np.int32,
                f"IsCrowd must be int32, got {ctx.input_dtype('IsCrowd')}")
    dtype = ctx.input_dtype("Anchor")
    for slot in ("GtBoxes", "ImInfo"):
        ctx.enforce(np.dtype(ctx.input_dtype(slot)) == np.dtype(dtype),
                    f"{slot} must have Anchor's dtype {dtype}, got {ctx.input_dtype(slot)}")
    ctx.set_output("LocationIndex", [-1], np.int32)
    ctx.set_output("ScoreIndex", [-1], np.int32)
    ctx.set_output("TargetBBox", [-1, 4], dtype)
    ctx.set_output("TargetLabel", [-1, 1], np.int32)
    ctx.set_output("BBoxInsideWeight", [-1, 4], dtype)
    for slot in OUTPUTS:
        ctx.set_output_lod_level(slot, 1)


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


def _assign(overlap: np.ndarray, attrs, seed: int | None):
    """(location rows, weights, foreground rows, background rows) over the inside anchors."""
    n_anchor, n_gt = overlap.shape
    dtype = overlap.dtype.type
    if n_gt:
        anchor_max = overlap.max(axis=1)
        near_best = (np.abs(overlap - overlap.max(axis=0)) < dtype(np.float32(1e-5))).any(axis=1)
    else:  # Eigen's max over nothing is -inf: every anchor is background
        anchor_max = np.full(n_anchor, -np.inf, overlap.dtype)
        near_best = np.zeros(n_anchor, bool)
    fg_cand = np.flatnonzero(near_best | (anchor_max >= dtype(attrs["rpn_positive_overlap"])))
    bg_cand = np.flatnonzero(anchor_max < dtype(attrs["rpn_negative_overlap"]))
    batch, fraction = attrs["rpn_batch_size_per_im"], np.float32(attrs["rpn_fg_fraction"])
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


def _image_slices(gt_boxes, is_crowd, n_images: int):
    gt_off, crowd_off = gt_boxes.offsets[-1], is_crowd.offsets[-1]
    if gt_off.size - 1 != n_images:
        raise KernelError(f"rpn_target_assign: GtBoxes' LoD has {gt_off.size - 1} images, "
                          f"but ImInfo has {n_images} rows")
    if not np.array_equal(np.diff(gt_off), np.diff(crowd_off)):
        raise KernelError(f"rpn_target_assign: IsCrowd's LoD {crowd_off.tolist()} must give "
                          f"each image as many flags as GtBoxes' {gt_off.tolist()} boxes")
    crowd = np.asarray(is_crowd.numpy()).reshape(-1)
    if crowd.size != gt_boxes.shape[0]:
        raise KernelError(f"rpn_target_assign: IsCrowd has {crowd.size} flags for "
                          f"{gt_boxes.shape[0]} GtBoxes")
    return [(slice(gt_off[i], gt_off[i + 1]), crowd[gt_off[i]:gt_off[i + 1]])
            for i in range(n_images)]


@rpn_target_assign.kernel(dtypes=FLOATS, lod=True)
def rpn_target_assign_kernel(attrs, anchor, gt_boxes, is_crowd, im_info):
    anchors, boxes, info = anchor.numpy(), gt_boxes.numpy(), im_info.numpy()
    seed = None
    if attrs["use_random"]:
        seed = attrs["seed"] if attrs["fix_seed"] else int(np.random.SeedSequence().entropy
                                                           % 2**32)
    parts = {slot: [] for slot in OUTPUTS}
    for i, (rows, crowd) in enumerate(_image_slices(gt_boxes, is_crowd, info.shape[0])):
        height, width, scale = info[i]
        inside = inside_anchors(anchors, height, width, attrs["rpn_straddle_thresh"])
        gts = boxes[rows][crowd == 0] * scale
        overlap = pairwise_iou(anchors[inside], gts, normalized=False)
        location, weights, fg, bg = _assign(overlap, attrs, seed)
        best_gt = overlap.argmax(axis=1) if gts.shape[0] else np.zeros(inside.size, np.int64)
        loc_anchor = inside[location]
        parts["LocationIndex"].append(loc_anchor + i * anchors.shape[0])
        parts["ScoreIndex"].append(np.concatenate([inside[fg], inside[bg]])
                                   + i * anchors.shape[0])
        parts["TargetBBox"].append(box_to_delta(anchors[loc_anchor], gts[best_gt[location]]))
        parts["TargetLabel"].append(np.concatenate([np.ones(fg.size), np.zeros(bg.size)]))
        parts["BBoxInsideWeight"].append(np.repeat(weights[:, None], 4, axis=1))
    dtypes = {"LocationIndex": np.int32, "ScoreIndex": np.int32, "TargetLabel": np.int32,
              "TargetBBox": anchors.dtype, "BBoxInsideWeight": anchors.dtype}
    shapes = {"LocationIndex": (-1,), "ScoreIndex": (-1,), "TargetLabel": (-1, 1),
              "TargetBBox": (-1, 4), "BBoxInsideWeight": (-1, 4)}
    result = []
    for slot in OUTPUTS:
        empty = np.zeros((0, 4) if shapes[slot][-1] == 4 else (0,))
        offsets = np.concatenate([[0], np.cumsum([len(p) for p in parts[slot]])])
        data = np.concatenate([empty, *parts[slot]]).astype(dtypes[slot])
        result.append(LoDTensor.unchecked(data.reshape(shapes[slot]),
                                          (offsets.astype(np.int64),)))
    return tuple(result)
