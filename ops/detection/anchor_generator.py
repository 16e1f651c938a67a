"""anchor_generator: Faster R-CNN's anchors, one set per cell of a feature map.

Input [N, C, H, W] gives the grid. For cell (i, j), with strides (sw, sh) and offset o, the
centre is (j sw + o (sw - 1), i sh + o (sh - 1)). For each aspect ratio r (outer) and
anchor size s (inner):

    base_w = round(sqrt(sw sh / r)), base_h = round(base_w r)    (halves away from zero)
    aw = s / sw * base_w,  ah = s / sh * base_h
    anchor = (cx - (aw - 1) / 2, cy - (ah - 1) / 2, cx + (aw - 1) / 2, cy + (ah - 1) / 2)

Anchors and Variances are [H, W, len(aspect_ratios) * len(anchor_sizes), 4]; every
anchor's variances are `variances`. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

anchor_generator = register_op(
    "anchor_generator",
    inputs=[In("Input", "[N, C, H, W]: the feature map (its H and W only)",
               no_need_buffer=True)],
    outputs=[Out("Anchors", "[H, W, A, 4]"), Out("Variances", "[H, W, A, 4]")],
    attrs=[Attr("anchor_sizes", "floats", [64.0, 128.0, 256.0, 512.0],
                "anchor sizes in input pixels"),
           Attr("aspect_ratios", "floats", [0.5, 1.0, 2.0], "height / width ratios"),
           Attr("variances", "floats", [0.1, 0.1, 0.2, 0.2], "the 4 variances of an anchor"),
           Attr("stride", "floats", [16.0, 16.0], "the cell's width and height in pixels"),
           Attr("offset", "float", 0.5, "the centre's place in the cell")],
    doc=__doc__,
)


@anchor_generator.infer_shape
def _(ctx):
    x = ctx.input_shape("Input")
    ctx.enforce(len(x) == 4, lambda: f"Input must be [N, C, H, W], got {shape_str(x)}")
    sizes, ratios = list(ctx.attr("anchor_sizes")), list(ctx.attr("aspect_ratios"))
    stride, variances = list(ctx.attr("stride")), list(ctx.attr("variances"))
    ctx.enforce(len(sizes) > 0 and all(s > 0 for s in sizes),
                lambda: f"anchor_sizes must be positive, got {sizes}")
    ctx.enforce(len(ratios) > 0 and all(r > 0 for r in ratios),
                lambda: f"aspect_ratios must be positive, got {ratios}")
    ctx.enforce(len(stride) == 2 and all(s > 0 for s in stride),
                lambda: f"stride must be 2 positive values (width, height), got {stride}")
    ctx.enforce(len(variances) == 4, lambda: f"variances must hold 4 values, got {variances}")
    shape = [x[2], x[3], len(sizes) * len(ratios), 4]
    ctx.set_output("Anchors", shape, ctx.input_dtype("Input"))
    ctx.set_output("Variances", shape, ctx.input_dtype("Input"))


def _round_away(v: np.ndarray) -> np.ndarray:
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def cell_anchors(attrs) -> np.ndarray:
    """[A, 2] (width, height) of the anchors of one cell, ratios outer, sizes inner."""
    sw, sh = attrs["stride"]
    ratios = np.asarray(attrs["aspect_ratios"], np.float64)[:, None]
    sizes = np.asarray(attrs["anchor_sizes"], np.float64)[None, :]
    base_w = _round_away(np.sqrt(sw * sh / ratios))
    base_h = _round_away(base_w * ratios)
    widths = np.broadcast_to(sizes / sw * base_w, (ratios.size, sizes.size))
    heights = np.broadcast_to(sizes / sh * base_h, (ratios.size, sizes.size))
    return np.stack([widths.reshape(-1), heights.reshape(-1)], axis=1)


@anchor_generator.kernel(dtypes=FLOATS)
def anchor_generator_kernel(attrs, x):
    h, w = x.shape[2], x.shape[3]
    sw, sh = attrs["stride"]
    offset = attrs["offset"]
    cx = np.arange(w) * sw + offset * (sw - 1)
    cy = np.arange(h) * sh + offset * (sh - 1)
    half = (cell_anchors(attrs) - 1) / 2  # [A, 2]
    anchors = np.empty((h, w, half.shape[0], 4), x.dtype)
    anchors[..., 0] = cx[None, :, None] - half[None, None, :, 0]
    anchors[..., 1] = cy[:, None, None] - half[None, None, :, 1]
    anchors[..., 2] = cx[None, :, None] + half[None, None, :, 0]
    anchors[..., 3] = cy[:, None, None] + half[None, None, :, 1]
    variances = np.broadcast_to(np.asarray(attrs["variances"], x.dtype), anchors.shape)
    return anchors, variances.copy()
