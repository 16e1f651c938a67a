"""distribute_fpn_proposals: sends each proposal to the FPN level its size asks for.

FpnRois [R, 4] (x1, y1, x2, y2), images by RoisNum (int [N]) or else its LoD. A box's
level is

    clamp(floor(log2(sqrt(area) / refer_scale + 1e-6) + refer_level), min_level, max_level)

with area = (w + 1)(h + 1) when pixel_offset, else w h (0 for an inverted box). For each
level from min_level to max_level, MultiFpnRois holds its boxes, image by image in their
original order, with a LoD (and MultiLevelRoIsNum, int32 [N], the counts) of boxes per
image. RestoreIndex (int32 [R, 1]) gives each original box's row in the levels' outputs
concatenated. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.detection.nms_util import box_area
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

distribute_fpn_proposals = register_op(
    "distribute_fpn_proposals",
    inputs=[In("FpnRois", "[R, 4], LoD: boxes per image"),
            In("RoisNum", "int [N]: boxes per image (instead of the LoD)", dispensable=True)],
    outputs=[Out("MultiFpnRois", "one [R_l, 4] per level, LoD: boxes per image",
                 duplicable=True),
             Out("RestoreIndex", "int32 [R, 1]"),
             Out("MultiLevelRoIsNum", "one int32 [N] per level", duplicable=True,
                 dispensable=True)],
    attrs=[Attr("min_level", "int", 2, "the finest level"),
           Attr("max_level", "int", 5, "the coarsest level"),
           Attr("refer_level", "int", 4, "the level of a box of refer_scale"),
           Attr("refer_scale", "int", 224, "the size that maps to refer_level"),
           Attr("pixel_offset", "bool", True, "areas measure (w + 1)(h + 1)")],
    doc=__doc__,
)


@distribute_fpn_proposals.infer_shape
def _(ctx):
    rois = ctx.input_shape("FpnRois")
    ctx.enforce(len(rois) == 2 and rois[1] in (-1, 4),
                lambda: f"FpnRois must be [R, 4], got {shape_str(rois)}")
    lo, hi = ctx.attr("min_level"), ctx.attr("max_level")
    ctx.enforce(0 <= lo <= hi, lambda: f"min_level ({lo}) must be <= max_level ({hi}) and >= 0")
    ctx.enforce(ctx.attr("refer_scale") > 0,
                lambda: f"refer_scale must be > 0, got {ctx.attr('refer_scale')}")
    levels = hi - lo + 1
    named = len(ctx.output_names("MultiFpnRois"))
    ctx.enforce(named == levels,
                lambda: f"MultiFpnRois must name one output per level ({levels}), got {named}")
    ctx.enforce(ctx.has_input("RoisNum") or ctx.input_lod_level("FpnRois") == 1,
                "FpnRois needs 1 LoD level (boxes per image) or RoisNum")
    counts = ctx.output_names("MultiLevelRoIsNum")
    ctx.enforce(not counts or len(counts) == levels,
                lambda: f"MultiLevelRoIsNum must name one output per level ({levels}), got "
                f"{len(counts)}")
    n = ctx.input_shape("RoisNum")[0] if ctx.has_input("RoisNum") else -1
    dtype = ctx.input_dtype("FpnRois")
    for i in range(levels):
        ctx.set_output("MultiFpnRois", [-1, 4], dtype, i=i)
        ctx.set_output_lod_level("MultiFpnRois", 1, i=i)
        ctx.set_output("MultiLevelRoIsNum", [n], np.int32, i=i)
    ctx.set_output("RestoreIndex", [rois[0], 1], np.int32)


def image_counts(rois, rois_num, op_type: str) -> np.ndarray:
    """Boxes per image, from RoisNum or else the LoD, checked against the rows."""
    if rois_num is not None:
        counts = rois_num.numpy().reshape(-1).astype(np.int64)
    elif rois.lod_level:
        counts = np.diff(rois.offsets[-1])
    else:
        raise ValueError(f"{op_type}: the boxes need a LoD (boxes per image) or RoisNum")
    if (counts < 0).any() or counts.sum() != rois.shape[0]:
        raise ValueError(f"{op_type}: boxes per image {counts.tolist()} must add up to the "
                         f"{rois.shape[0]} boxes")
    return counts


def target_levels(boxes: np.ndarray, attrs) -> np.ndarray:
    dtype = boxes.dtype.type
    scale = np.sqrt(box_area(boxes, attrs["pixel_offset"]))
    with np.errstate(divide="ignore"):
        level = np.floor(np.log2(scale / dtype(attrs["refer_scale"]) + dtype(1e-6))
                         + attrs["refer_level"])
    return np.clip(level, attrs["min_level"], attrs["max_level"]).astype(np.int64)


@distribute_fpn_proposals.kernel(dtypes=FLOATS, lod=True)
def distribute_fpn_proposals_kernel(attrs, rois, rois_num):
    boxes = rois.numpy()
    counts = image_counts(rois, rois_num, "distribute_fpn_proposals")
    image = np.repeat(np.arange(counts.size), counts)
    level = target_levels(boxes, attrs) - attrs["min_level"]
    levels = attrs["max_level"] - attrs["min_level"] + 1
    order = np.argsort(level, kind="stable")  # by level, then image, then original order
    restore = np.empty(boxes.shape[0], np.int32)
    restore[order] = np.arange(boxes.shape[0], dtype=np.int32)
    outs, nums = [], []
    for lv in range(levels):
        mine = level == lv
        per_image = np.bincount(image[mine], minlength=counts.size).astype(np.int64)
        offsets = (np.concatenate([[0], np.cumsum(per_image)]),)
        outs.append(LoDTensor.unchecked(boxes[mine], offsets))
        nums.append(LoDTensor.unchecked(per_image.astype(np.int32)))
    return outs, LoDTensor.unchecked(restore.reshape(-1, 1)), nums
