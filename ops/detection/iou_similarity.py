"""iou_similarity: the intersection over union of every box of X with every box of Y.

X [N, 4] and Y [M, 4] boxes (x1, y1, x2, y2); Out [N, M], Out[i, j] = IoU(X_i, Y_j), with
X's LoD (X often holds the ground truth of several images, Y the priors). Unnormalised
boxes (box_normalized False) measure sides as x2 - x1 + 1; boxes that do not overlap give
0. No gradient (Paddle registers none).
"""

from __future__ import annotations

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.detection.multiclass_nms import iou_matrix
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
                    f"{slot} must be [boxes, 4], got {shape_str(shape)}")
    ctx.set_output("Out", [x[0], y[0]], ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


@iou_similarity.kernel(dtypes=FLOATS, lod=True)
def iou_similarity_kernel(attrs, x, y):
    boxes = x.numpy()
    out = iou_matrix(boxes, y.numpy(), attrs["box_normalized"]).astype(boxes.dtype)
    return LoDTensor.unchecked(out, x.offsets)
