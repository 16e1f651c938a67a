"""generate_proposal_labels: samples Fast R-CNN training RoIs and their targets.

RpnRois [R, 4], GtClasses int32 [G, 1], IsCrowd int32 [G, 1], GtBoxes [G, 4] (each with
one LoD level: image i's rows), ImInfo [N, 3] (height, width, scale); MaxOverlap [R]
(cascade only). Per image with RoIs (an image without any is skipped, as in Paddle):

1. boxes = GtBoxes then RpnRois / scale (cascade: only the RoIs with w + 1 > 0,
   h + 1 > 0 and MaxOverlap < 1; none left gives one zero box);
2. IoU of each box with every ground truth (+ 1 pixel convention); a box's max
   overlap is its row maximum, except -1 for the crowd ground truths themselves;
3. foreground: max overlap >= fg_thresh (its box: the first within 1e-5 of the
   max); background: bg_thresh_lo <= max overlap < bg_thresh_hi;
4. not cascade: int(floor(batch_size_per_im * fg_fraction)) foregrounds kept at most and
   batch_size_per_im - foregrounds backgrounds, by Paddle's reservoir sampling when
   use_random (see below) or the first ones;
5. Rois = the foregrounds then backgrounds, times scale; LabelsInt32 their box's
   GtClasses (0 background); BboxTargets [*, 4 * class_nums] hold a foreground's deltas
   (BoxToDelta divided by bbox_reg_weights) in the 4 columns of its class (class 1 when
   is_cls_agnostic), where BboxInside/OutsideWeights are 1; MaxOverlapWithGT the max
   overlaps (Paddle 2's output; optional here, as 1.8 programs lack it).

Sampling: Paddle draws from std::minstd_rand seeded by std::random_device, one engine
state per image, the background draws continuing the foreground ones; its background
loop swaps when the draw is below the *foreground* count (kept). Its seed cannot be
reproduced; fix_seed with `seed` (attributes Paddle's op does not have) gives Paddle's
draws for that seed, else a seed is drawn afresh per run. fg_thresh >= follows Paddle
2.x's source (the index holds no 1.8 copy). No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.detection.anchor_targets import box_to_delta, image_slices
from paddle_ir.ops.detection.iou_similarity import pairwise_iou
from paddle_ir.ops.detection.reservoir_sampling import uniform_draws
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

OUTPUTS = ("Rois", "LabelsInt32", "BboxTargets", "BboxInsideWeights", "BboxOutsideWeights",
           "MaxOverlapWithGT")

generate_proposal_labels = register_op(
    "generate_proposal_labels",
    inputs=[In("RpnRois", "[R, 4], 1 LoD level: each image's proposals"),
            In("GtClasses", "int32 [G, 1], 1 LoD level: each ground truth's class"),
            In("IsCrowd", "int32 [G, 1], 1 LoD level: 1 for a crowd ground truth"),
            In("GtBoxes", "[G, 4], 1 LoD level: each image's ground-truth boxes"),
            In("ImInfo", "[N, 3]: each image's height, width, scale"),
            In("MaxOverlap", "[R], 1 LoD level: each RoI's max overlap (cascade)",
               dispensable=True)],
    outputs=[Out("Rois", "[P, 4]"), Out("LabelsInt32", "int32 [P, 1]"),
             Out("BboxTargets", "[P, 4 * class_nums]"),
             Out("BboxInsideWeights", "[P, 4 * class_nums]"),
             Out("BboxOutsideWeights", "[P, 4 * class_nums]"),
             Out("MaxOverlapWithGT", "[P]", dispensable=True)],
    attrs=[Attr("batch_size_per_im", "int", 256, "RoIs sampled per image"),
           Attr("fg_fraction", "float", 0.25, "the foreground share"),
           Attr("fg_thresh", "float", 0.25, "max overlap making a foreground"),
           Attr("bg_thresh_hi", "float", 0.5, "a background's max overlap is below it"),
           Attr("bg_thresh_lo", "float", 0.0, "and at least this"),
           Attr("bbox_reg_weights", "floats", [0.1, 0.1, 0.2, 0.2],
                "the deltas are divided by these"),
           Attr("class_nums", "int", 81, "classes, background included"),
           Attr("use_random", "bool", True, "sample at random (else the first ones)"),
           Attr("is_cls_agnostic", "bool", False, "one box target column (class 1)"),
           Attr("is_cascade_rcnn", "bool", False, "Cascade R-CNN's stage 2+: no sampling"),
           Attr("fix_seed", "bool", False, "draw from `seed` (the same sample every run)"),
           Attr("seed", "int", 0, "the minstd_rand seed used when fix_seed")],
    key_inputs=["RpnRois"],
    doc=__doc__,
)


@generate_proposal_labels.infer_shape
def _(ctx):
    for slot, cols in (("RpnRois", 4), ("GtBoxes", 4), ("ImInfo", 3)):
        shape = ctx.input_shape(slot)
        ctx.enforce(len(shape) == 2 and shape[1] in (-1, cols),
                    lambda: f"{slot} must be [*, {cols}], got {shape_str(shape)}")
    for slot in ("RpnRois", "GtClasses", "IsCrowd", "GtBoxes"):
        ctx.enforce(ctx.input_lod_level(slot) == 1,
                    lambda: f"{slot} must have 1 LoD level (each image's rows), got "
                    f"{ctx.input_lod_level(slot)}")
    for slot in ("GtClasses", "IsCrowd"):
        ctx.enforce(np.dtype(ctx.input_dtype(slot)) == np.int32,
                    lambda: f"{slot} must be int32, got {ctx.input_dtype(slot)}")
    dtype = ctx.input_dtype("RpnRois")
    for slot in ("GtBoxes", "ImInfo"):
        ctx.enforce(np.dtype(ctx.input_dtype(slot)) == np.dtype(dtype),
                    lambda: f"{slot} must have RpnRois' dtype {dtype}, got {ctx.input_dtype(slot)}")
    classes = ctx.attr("class_nums")
    ctx.enforce(classes > 0, lambda: f"class_nums must be > 0, got {classes}")
    ctx.enforce(len(ctx.attr("bbox_reg_weights")) == 4,
                lambda: f"bbox_reg_weights must hold 4 values, got {ctx.attr('bbox_reg_weights')}")
    ctx.enforce(not ctx.attr("is_cascade_rcnn") or ctx.has_input("MaxOverlap"),
                "MaxOverlap must be given when is_cascade_rcnn is set")
    ctx.set_output("Rois", [-1, 4], dtype)
    ctx.set_output("LabelsInt32", [-1, 1], np.int32)
    for slot in ("BboxTargets", "BboxInsideWeights", "BboxOutsideWeights"):
        ctx.set_output(slot, [-1, 4 * classes], dtype)
    if ctx.has_output("MaxOverlapWithGT"):
        ctx.set_output("MaxOverlapWithGT", [-1], dtype)
    for slot in OUTPUTS:
        if ctx.has_output(slot):
            ctx.set_output_lod_level(slot, 1)


def _candidates(overlap: np.ndarray, crowd: np.ndarray, attrs):
    """(foreground rows, their ground truths, background rows, row max overlaps)."""
    dtype = overlap.dtype.type
    row_max = overlap.max(axis=1)
    ranked = row_max.copy()
    ranked[:crowd.size][crowd != 0] = -1
    fg = np.flatnonzero(ranked >= dtype(attrs["fg_thresh"]))
    near = np.abs(ranked[fg, None] - overlap[fg]) < dtype(np.float32(1e-5))
    fg_gt = near.argmax(axis=1)
    fg = fg[near.any(axis=1)]  # a NaN row matches no ground truth (Paddle skips it too)
    fg_gt = fg_gt[near.any(axis=1)]
    bg = np.flatnonzero((ranked < dtype(attrs["fg_thresh"]))
                        & (ranked >= dtype(attrs["bg_thresh_lo"]))
                        & (ranked < dtype(attrs["bg_thresh_hi"])))
    return fg, fg_gt, bg, row_max


def _sample(fg, fg_gt, bg, attrs, seed: int | None):
    """Paddle's SampleFgBgGt sampling: one run of draws, foregrounds then backgrounds."""
    batch = attrs["batch_size_per_im"]
    fg_keep = min(int(np.floor(np.float32(batch) * np.float32(attrs["fg_fraction"]))),
                  fg.size)
    bg_keep = min(batch - fg_keep, bg.size)
    fg, fg_gt, bg = fg.copy(), fg_gt.copy(), bg.copy()
    if seed is not None:
        fg_draws = max(fg.size - fg_keep, 0)
        draws = uniform_draws(seed, fg_draws + max(bg.size - max(bg_keep, 0), 0))
        for k, i in enumerate(range(fg_keep, fg.size)):
            pick = int(np.floor(draws[k] * np.float32(i)))
            if pick < fg_keep:
                fg[[pick, i]], fg_gt[[pick, i]] = fg[[i, pick]], fg_gt[[i, pick]]
        if bg.size > bg_keep:
            for k, i in enumerate(range(bg_keep, bg.size)):
                pick = int(np.floor(draws[fg_draws + k] * np.float32(i)))
                if pick < fg_keep:  # Paddle compares with the foreground count
                    bg[[pick, i]] = bg[[i, pick]]
    return fg[:fg_keep], fg_gt[:fg_keep], bg[:max(bg_keep, 0)]


def _one_image(rois, classes, crowd, gts, scale, max_overlap, attrs, seed):
    dtype = rois.dtype
    rois = rois / scale
    if attrs["is_cascade_rcnn"]:
        keep = ((rois[:, 2] - rois[:, 0] + 1 > 0) & (rois[:, 3] - rois[:, 1] + 1 > 0)
                & (max_overlap < 1))
        rois = rois[keep] if keep.any() else np.zeros((1, 4), dtype)
    boxes = np.concatenate([gts, rois]).astype(dtype)
    overlap = pairwise_iou(boxes, gts, normalized=False)
    fg, fg_gt, bg, row_max = _candidates(overlap, crowd, attrs)
    if not attrs["is_cascade_rcnn"]:
        fg, fg_gt, bg = _sample(fg, fg_gt, bg, attrs, seed)
    rows = np.concatenate([fg, bg])
    labels = np.concatenate([classes[fg_gt], np.zeros(bg.size, np.int32)]).astype(np.int32)
    n_class = attrs["class_nums"]
    if labels.size and labels.max() >= n_class:
        raise KernelError(f"generate_proposal_labels: GtClasses holds class {labels.max()}, "
                          f"but class_nums is {n_class}")
    weights = np.asarray(attrs["bbox_reg_weights"], np.float32).astype(dtype)
    deltas = box_to_delta(boxes[fg], gts[fg_gt]) / weights
    targets = np.zeros((rows.size, 4 * n_class), dtype)
    inside = np.zeros_like(targets)
    column = np.ones(fg.size, np.int64) if attrs["is_cls_agnostic"] else labels[:fg.size]
    positive = np.flatnonzero(labels[:fg.size] > 0)
    for k in range(4):
        targets[positive, 4 * column[positive] + k] = deltas[positive, k]
        inside[positive, 4 * column[positive] + k] = 1
    return (boxes[rows] * scale, labels.reshape(-1, 1), targets, inside, inside.copy(),
            row_max[rows])


@generate_proposal_labels.kernel(dtypes=FLOATS, lod=True)
def generate_proposal_labels_kernel(attrs, rpn_rois, gt_classes, is_crowd, gt_boxes, im_info,
                                    max_overlap):
    rois_all, info, boxes = rpn_rois.numpy(), im_info.numpy(), gt_boxes.numpy()
    seed = None
    if attrs["use_random"]:
        seed = attrs["seed"] if attrs["fix_seed"] else int(np.random.SeedSequence().entropy
                                                           % 2**32)
    slices = image_slices("generate_proposal_labels", gt_boxes,
                          {"IsCrowd": is_crowd, "GtClasses": gt_classes}, info.shape[0])
    roi_off = rpn_rois.offsets[-1]
    if roi_off.size - 1 != info.shape[0]:
        raise KernelError(f"generate_proposal_labels: RpnRois' LoD has {roi_off.size - 1} "
                          f"images, but ImInfo has {info.shape[0]} rows")
    overlaps = None
    if attrs["is_cascade_rcnn"]:
        overlaps = np.asarray(max_overlap.numpy()).reshape(-1)
        if overlaps.size != rois_all.shape[0]:
            raise KernelError(f"generate_proposal_labels: MaxOverlap has {overlaps.size} "
                              f"values for {rois_all.shape[0]} RpnRois (one each)")
    parts = [[] for _ in OUTPUTS]
    for i, (rows, (crowd, classes)) in enumerate(slices):
        lo, hi = roi_off[i], roi_off[i + 1]
        if lo == hi:
            continue
        if rows.stop == rows.start:
            raise KernelError(f"generate_proposal_labels: image {i} has RpnRois but no "
                              f"GtBoxes (Paddle's kernel reads past its overlaps then)")
        image = _one_image(rois_all[lo:hi], classes, crowd, boxes[rows], info[i, 2],
                           None if overlaps is None else overlaps[lo:hi], attrs, seed)
        for part, value in zip(parts, image, strict=True):
            part.append(value)
    dtype, width = rois_all.dtype, 4 * attrs["class_nums"]
    empty = [np.zeros((0, 4), dtype), np.zeros((0, 1), np.int32), np.zeros((0, width), dtype),
             np.zeros((0, width), dtype), np.zeros((0, width), dtype), np.zeros(0, dtype)]
    counts = np.zeros(info.shape[0], np.int64)
    counts[[i for i in range(info.shape[0]) if roi_off[i] != roi_off[i + 1]]] = \
        [len(p) for p in parts[0]]
    offsets = (np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),)
    return tuple(LoDTensor.unchecked(np.concatenate([e, *p]).astype(e.dtype), offsets)
                 for e, p in zip(empty, parts, strict=True))
