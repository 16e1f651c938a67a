"""iou_similarity: the intersection over union of every box of X with every box of Y.

X [N, 4] and Y [M, 4] boxes (x1, y1, x2, y2); Out [N, M], Out[i, j] = IoU(X_i, Y_j), with
X's LoD (X often holds the ground truth of several images, Y the priors). Unnormalised
boxes (box_normalized False) measure sides as x2 - x1 + 1, the intersection too (so boxes
less than a pixel apart still overlap, as in Paddle's IOUSimilarity; NMS's overlap test
differs); boxes that do not overlap give 0. No gradient (Paddle registers none).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

iou_similarity = register_op(
    "iou_similarity",
    inputs=[In("X", "[N, 4] boxes (LoD: boxes per image)"), In("Y", "[M, 4] boxes")],
    outputs=[Out("Out", "[N, M], X's LoD")],
    attrs=[Attr("box_normalized", "bool", True, "False: sides are x2 - x1 + 1 pixels")],
    doc=__doc__,
)


@iou_similarity.infer_shape
def _(ctx):
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    for slot, shape in (("X", x), ("Y", y)):
        ctx.enforce(len(shape) == 2 and shape[1] in (-1, 4),
                    lambda: f"{slot} must be [boxes, 4], got {shape_str(shape)}")
    ctx.set_output("Out", [x[0], y[0]], ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def pairwise_iou(a: np.ndarray, b: np.ndarray, normalized: bool) -> np.ndarray:
    """[len(a), len(b)] IoU with Paddle's IOUSimilarity arithmetic."""
    extra = a.dtype.type(0 if normalized else 1)
    w = np.maximum(np.minimum(a[:, None, 2], b[None, :, 2])
                   - np.maximum(a[:, None, 0], b[None, :, 0]) + extra, 0)
    h = np.maximum(np.minimum(a[:, None, 3], b[None, :, 3])
                   - np.maximum(a[:, None, 1], b[None, :, 1]) + extra, 0)
    inter = w * h
    area_a = (a[:, 2] - a[:, 0] + extra) * (a[:, 3] - a[:, 1] + extra)
    area_b = (b[:, 2] - b[:, 0] + extra) * (b[:, 3] - b[:, 1] + extra)
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(inter > 0, inter / union, 0).astype(a.dtype)


@iou_similarity.kernel(dtypes=FLOATS, lod=True)
def iou_similarity_kernel(attrs, x, y):
    boxes = x.numpy()
    out = pairwise_iou(boxes, y.numpy().astype(boxes.dtype), attrs["box_normalized"])
    return LoDTensor.unchecked(out, x.offsets)
