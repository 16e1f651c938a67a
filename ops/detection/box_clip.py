"""box_clip: boxes clipped to their image.

Input [..., 4] boxes (x1, y1, x2, y2) of several images: by its LoD (the boxes of image i
are the rows of segment i) or, without LoD, by its first dim (one row of ImInfo per
leading index). ImInfo [B, 3] holds each image's (height, width, scale); with
w = round(width / scale), h = round(height / scale) (halves away from zero):

    x1, x2 clipped to [0, w - 1];  y1, y2 clipped to [0, h - 1]

Output has Input's shape and LoD. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, In, Out, register_op

box_clip = register_op(
    "box_clip",
    inputs=[In("Input", "[..., 4] boxes; LoD (or dim 0) maps them to images"),
            In("ImInfo", "[B, 3]: height, width, scale per image")],
    outputs=[Out("Output", "Input's shape and LoD")],
    doc=__doc__,
)


@box_clip.infer_shape
def _(ctx):
    boxes, info = ctx.input_shape("Input"), ctx.input_shape("ImInfo")
    ctx.enforce(len(boxes) >= 2 and boxes[-1] in (-1, 4),
                lambda: f"Input must be [..., 4] boxes, got {shape_str(boxes)}")
    ctx.enforce(len(info) == 2 and info[1] in (-1, 3),
                lambda: f"ImInfo must be [B, 3] (height, width, scale), got {shape_str(info)}")
    ctx.set_output("Output", boxes, ctx.input_dtype("Input"))
    ctx.share_lod("Input", "Output")


def image_bounds(info: np.ndarray) -> np.ndarray:
    """[B, 2] (w - 1, h - 1) of each image at its original scale (std::round: halves away)."""
    scaled = info[:, [1, 0]] / info[:, 2:3]
    return np.sign(scaled) * np.floor(np.abs(scaled) + 0.5) - 1


@box_clip.kernel(dtypes=FLOATS, lod=True)
def box_clip_kernel(attrs, boxes, info):
    data, info = boxes.numpy(), info.numpy()
    if boxes.lod_level:
        counts = np.diff(boxes.offsets[-1])
        what = f"the {counts.size} sequences of Input's LoD"
    else:
        counts = np.ones(data.shape[0], np.int64)
        what = f"Input's {data.shape[0]} leading rows (it has no LoD)"
    if counts.size != info.shape[0]:
        raise ValueError(f"box_clip: ImInfo has {info.shape[0]} images, but {what} need "
                         f"{counts.size}")
    if not (info[:, 2] > 0).all():
        raise ValueError(f"box_clip: ImInfo's scales (column 2) must be > 0, got "
                         f"{info[:, 2].tolist()}")
    upper = np.tile(np.repeat(image_bounds(info).astype(data.dtype), counts, axis=0), 2)
    upper = upper.reshape((upper.shape[0],) + (1,) * (data.ndim - 2) + (4,))
    out = np.maximum(np.minimum(data, upper), 0).astype(data.dtype)
    return LoDTensor.unchecked(out, boxes.offsets)
