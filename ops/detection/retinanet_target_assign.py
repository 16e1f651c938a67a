"""retinanet_target_assign: RetinaNet's anchor targets (every anchor, no sampling).

As rpn_target_assign (anchor_targets.py), with all anchors inside (no straddle filter),
no sampling, positive_overlap / negative_overlap as the thresholds, and GtLabels int32
[G, 1] (1 LoD level, as GtBoxes): a foreground's TargetLabel is the label of its best
(non-crowd) box, a background's 0. ForegroundNumber int32 [N, 1] holds, per image, the
number of locations + 1 (Paddle's count, the + 1 guarding the focal loss' division).
Outputs keep one LoD level (ForegroundNumber's one row per image). No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.detection.anchor_targets import assign_images, lod_outputs
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

OUTPUTS = ("LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel", "BBoxInsideWeight",
           "ForegroundNumber")

retinanet_target_assign = register_op(
    "retinanet_target_assign",
    inputs=[In("Anchor", "[A, 4]: the anchors (x1, y1, x2, y2)"),
            In("GtBoxes", "[G, 4], 1 LoD level: each image's ground-truth boxes"),
            In("GtLabels", "int32 [G, 1], 1 LoD level: each box's class"),
            In("IsCrowd", "int32 [G, 1], 1 LoD level: 1 for a crowd box (ignored)"),
            In("ImInfo", "[N, 3]: each image's height, width, scale")],
    outputs=[Out("LocationIndex", "int32 [F]: the anchors given a box target"),
             Out("ScoreIndex", "int32 [F + B]: the foreground then background anchors"),
             Out("TargetBBox", "[F, 4]: box deltas"),
             Out("TargetLabel", "int32 [F + B, 1]: the box's class, 0 background"),
             Out("BBoxInsideWeight", "[F, 4]: 0 for a placeholder location, else 1"),
             Out("ForegroundNumber", "int32 [N, 1]: locations + 1 per image")],
    attrs=[Attr("positive_overlap", "float", 0.5, "IoU making an anchor foreground"),
           Attr("negative_overlap", "float", 0.4, "IoU below which it is background")],
    key_inputs=["Anchor"],
    doc=__doc__,
)


@retinanet_target_assign.infer_shape
def _(ctx):
    for slot, cols in (("Anchor", 4), ("GtBoxes", 4), ("ImInfo", 3)):
        shape = ctx.input_shape(slot)
        ctx.enforce(len(shape) == 2 and shape[1] in (-1, cols),
                    lambda: f"{slot} must be [*, {cols}], got {shape_str(shape)}")
    for slot in ("GtBoxes", "GtLabels", "IsCrowd"):
        ctx.enforce(ctx.input_lod_level(slot) == 1,
                    lambda: f"{slot} must have 1 LoD level (each image's boxes), got "
                    f"{ctx.input_lod_level(slot)}")
    for slot in ("GtLabels", "IsCrowd"):
        ctx.enforce(np.dtype(ctx.input_dtype(slot)) == np.int32,
                    lambda: f"{slot} must be int32, got {ctx.input_dtype(slot)}")
    dtype = ctx.input_dtype("Anchor")
    for slot in ("GtBoxes", "ImInfo"):
        ctx.enforce(np.dtype(ctx.input_dtype(slot)) == np.dtype(dtype),
                    lambda: f"{slot} must have Anchor's dtype {dtype}, got {ctx.input_dtype(slot)}")
    ctx.set_output("LocationIndex", [-1], np.int32)
    ctx.set_output("ScoreIndex", [-1], np.int32)
    ctx.set_output("TargetBBox", [-1, 4], dtype)
    ctx.set_output("TargetLabel", [-1, 1], np.int32)
    ctx.set_output("BBoxInsideWeight", [-1, 4], dtype)
    ctx.set_output("ForegroundNumber", [-1, 1], np.int32)
    for slot in OUTPUTS:
        ctx.set_output_lod_level(slot, 1)


@retinanet_target_assign.kernel(dtypes=FLOATS, lod=True)
def retinanet_target_assign_kernel(attrs, anchor, gt_boxes, gt_labels, is_crowd, im_info):
    anchors, info = anchor.numpy(), im_info.numpy()
    images = assign_images("retinanet_target_assign", anchors, gt_boxes,
                           {"IsCrowd": is_crowd, "GtLabels": gt_labels}, info, -1.0,
                           attrs["positive_overlap"], attrs["negative_overlap"], -1, -1.0, None)
    labels = [np.concatenate([im.per_box[1][im.fg_box], np.zeros(im.bg.size)])
              for im in images]
    counts = np.array([[im.location.size + 1] for im in images], np.int32).reshape(-1, 1)
    offsets = np.arange(len(images) + 1, dtype=np.int64)
    return (*lod_outputs(images, labels, anchors.dtype), LoDTensor.unchecked(counts, (offsets,)))
