"""collect_fpn_proposals: the best proposals of all FPN levels, gathered per image.

MultiLevelRois (one [R_l, 4] per level) and MultiLevelScores (one [R_l, 1] per level),
images by MultiLevelRoIsNum (one int [N] per level) or else the boxes' LoD. All boxes
are ranked by score (stable: ties keep level order, then row order), the best
post_nms_topN kept, then regrouped by image (stably). FpnRois [K, 4] has a LoD of boxes
per image; RoisNum (int32 [N]) the counts. No gradient.

(Paddle's kernel miscounts an image left with no box, shifting its LoD; here such an image
has an empty sequence and a count of 0.)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.detection.distribute_fpn_proposals import image_counts
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

collect_fpn_proposals = register_op(
    "collect_fpn_proposals",
    inputs=[In("MultiLevelRois", "one [R_l, 4] per level", duplicable=True),
            In("MultiLevelScores", "one [R_l, 1] per level", duplicable=True),
            In("MultiLevelRoIsNum", "one int [N] per level", duplicable=True,
               dispensable=True)],
    outputs=[Out("FpnRois", "[K, 4], LoD: boxes per image"),
             Out("RoisNum", "int32 [N]", dispensable=True)],
    attrs=[Attr("post_nms_topN", "int", 100, "how many boxes are kept in all")],
    doc=__doc__,
)


@collect_fpn_proposals.infer_shape
def _(ctx):
    levels = ctx.input_count("MultiLevelRois")
    ctx.enforce(levels >= 1, "MultiLevelRois must hold at least one level")
    ctx.enforce(ctx.input_count("MultiLevelScores") == levels,
                lambda: f"MultiLevelScores must hold one tensor per level ({levels}), got "
                f"{ctx.input_count('MultiLevelScores')}")
    nums = ctx.input_count("MultiLevelRoIsNum")
    ctx.enforce(nums in (0, levels),
                lambda: f"MultiLevelRoIsNum must hold one tensor per level ({levels}), got {nums}")
    ctx.enforce(ctx.attr("post_nms_topN") >= 0,
                lambda: f"post_nms_topN must be >= 0, got {ctx.attr('post_nms_topN')}")
    for i in range(levels):
        rois, scores = ctx.input_shape("MultiLevelRois", i), ctx.input_shape("MultiLevelScores", i)
        ctx.enforce(len(rois) == 2 and rois[1] in (-1, 4),
                    lambda: f"MultiLevelRois[{i}] must be [R, 4], got {list(rois)}")
        ctx.enforce(len(scores) == 2 and scores[1] in (-1, 1)
                    and (rois[0] < 0 or scores[0] < 0 or rois[0] == scores[0]),
                    lambda: f"MultiLevelScores[{i}] must be [{rois[0]}, 1] for its boxes, got "
                    f"{list(scores)}")
        ctx.enforce(nums or ctx.input_lod_level("MultiLevelRois", i) == 1,
                    lambda: f"MultiLevelRois[{i}] needs 1 LoD level (boxes per image) or "
                    f"MultiLevelRoIsNum")
    n = ctx.input_shape("MultiLevelRoIsNum", 0)[0] if nums else -1
    ctx.set_output("FpnRois", [-1, 4], ctx.input_dtype("MultiLevelRois"))
    ctx.set_output_lod_level("FpnRois", 1)
    ctx.set_output("RoisNum", [n], np.int32)


@collect_fpn_proposals.kernel(dtypes=FLOATS, lod=True)
def collect_fpn_proposals_kernel(attrs, rois, scores, rois_nums):
    counts = [image_counts(r, rois_nums[i] if rois_nums else None, "collect_fpn_proposals")
              for i, r in enumerate(rois)]
    batch = {c.size for c in counts}
    if len(batch) != 1:
        raise ValueError(f"collect_fpn_proposals: the levels give different numbers of "
                         f"images {sorted(batch)}")
    n = batch.pop()
    for i, (r, s) in enumerate(zip(rois, scores, strict=True)):
        if s.shape[0] != r.shape[0]:
            raise ValueError(f"collect_fpn_proposals: MultiLevelScores[{i}] has {s.shape[0]} "
                             f"rows for {r.shape[0]} boxes")
    boxes = np.concatenate([r.numpy().reshape(-1, 4) for r in rois])
    score = np.concatenate([s.numpy().reshape(-1) for s in scores])
    image = np.concatenate([np.repeat(np.arange(n), c) for c in counts])
    top = min(attrs["post_nms_topN"], score.size)
    best = np.argsort(-score, kind="stable")[:top]
    best = best[np.argsort(image[best], kind="stable")]
    per_image = np.bincount(image[best], minlength=n)
    offsets = (np.concatenate([[0], np.cumsum(per_image)]).astype(np.int64),)
    return (LoDTensor.unchecked(boxes[best], offsets),
            LoDTensor.unchecked(per_image.astype(np.int32)))
