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

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.detection.anchor_targets import assign_images, lod_outputs
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

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
                    lambda: f"{slot} must be [*, {cols}], got {shape_str(shape)}")
    for slot in ("GtBoxes", "IsCrowd"):
        ctx.enforce(ctx.input_lod_level(slot) == 1,
                    lambda: f"{slot} must have 1 LoD level (each image's boxes), got "
                    f"{ctx.input_lod_level(slot)}")
    ctx.enforce(np.dtype(ctx.input_dtype("IsCrowd")) == np.int32,
                lambda: f"IsCrowd must be int32, got {ctx.input_dtype('IsCrowd')}")
    dtype = ctx.input_dtype("Anchor")
    for slot in ("GtBoxes", "ImInfo"):
        ctx.enforce(np.dtype(ctx.input_dtype(slot)) == np.dtype(dtype),
                    lambda: f"{slot} must have Anchor's dtype {dtype}, got {ctx.input_dtype(slot)}")
    ctx.set_output("LocationIndex", [-1], np.int32)
    ctx.set_output("ScoreIndex", [-1], np.int32)
    ctx.set_output("TargetBBox", [-1, 4], dtype)
    ctx.set_output("TargetLabel", [-1, 1], np.int32)
    ctx.set_output("BBoxInsideWeight", [-1, 4], dtype)
    for slot in OUTPUTS:
        ctx.set_output_lod_level(slot, 1)


@rpn_target_assign.kernel(dtypes=FLOATS, lod=True)
def rpn_target_assign_kernel(attrs, anchor, gt_boxes, is_crowd, im_info):
    anchors, info = anchor.numpy(), im_info.numpy()
    seed = None
    if attrs["use_random"]:
        seed = attrs["seed"] if attrs["fix_seed"] else int(np.random.SeedSequence().entropy
                                                           % 2**32)
    images = assign_images("rpn_target_assign", anchors, gt_boxes, {"IsCrowd": is_crowd}, info,
                           attrs["rpn_straddle_thresh"], attrs["rpn_positive_overlap"],
                           attrs["rpn_negative_overlap"], attrs["rpn_batch_size_per_im"],
                           attrs["rpn_fg_fraction"], seed)
    labels = [np.concatenate([np.ones(im.fg.size), np.zeros(im.bg.size)]) for im in images]
    return lod_outputs(images, labels, anchors.dtype)
