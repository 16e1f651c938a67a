"""density_prior_box: SSD priors laid densely inside each cell (face detectors, PyramidBox).

Input [N, C, H, W] gives the grid, Image [N, C, IH, IW] the image. Steps are step_w,
step_h (0: IW / W, IH / H); a = int((step_w + step_h) / 2). For cell (i, j), centre
((j + offset) step_w, (i + offset) step_h); for each fixed size s with density d (shift =
a // d, integer division) and each fixed ratio r, boxes of width s sqrt(r) and height
s / sqrt(r) centred at

    (cx - a / 2 + shift / 2 + dj shift,  cy - a / 2 + shift / 2 + di shift),  di, dj < d

normalised by the image size and clipped to [0, 1] on their outer sides (all sides with
clip). Boxes and Variances are [H, W, P, 4] (P = sum of len(fixed_ratios) d^2), or
[H W P, 4] with flatten_to_2d. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

density_prior_box = register_op(
    "density_prior_box",
    inputs=[In("Input", "[N, C, H, W]: the feature map", no_need_buffer=True),
            In("Image", "[N, C, IH, IW]: the image", no_need_buffer=True)],
    outputs=[Out("Boxes", "[H, W, P, 4] (or [H W P, 4])"), Out("Variances", "Boxes' shape")],
    attrs=[Attr("variances", "floats", [0.1, 0.1, 0.2, 0.2], "the four variances"),
           Attr("clip", "bool", False, "clip every side to [0, 1]"),
           Attr("step_w", "float", 0.0, "the horizontal cell step (0: IW / W)"),
           Attr("step_h", "float", 0.0, "the vertical cell step (0: IH / H)"),
           Attr("offset", "float", 0.5, "the centre's offset within its cell"),
           Attr("fixed_sizes", "floats", [], "box sizes, one per density"),
           Attr("fixed_ratios", "floats", [], "width / height ratios"),
           Attr("densities", "ints", [], "boxes per side of a cell, one per size"),
           Attr("flatten_to_2d", "bool", False, "Boxes as [H W P, 4]")],
    doc=__doc__,
)


def _count(attrs) -> int:
    return sum(len(attrs["fixed_ratios"]) * d * d for d in attrs["densities"])


@density_prior_box.infer_shape
def _(ctx):
    x, image = ctx.input_shape("Input"), ctx.input_shape("Image")
    ctx.enforce(len(x) == 4 and len(image) == 4,
                lambda: f"Input and Image must be 4-D, got {shape_str(x)} and {shape_str(image)}")
    sizes, dens = list(ctx.attr("fixed_sizes")), list(ctx.attr("densities"))
    ratios = list(ctx.attr("fixed_ratios"))
    ctx.enforce(len(sizes) == len(dens) and sizes,
                lambda: f"fixed_sizes and densities must pair up, got {sizes} and {dens}")
    ctx.enforce(all(d > 0 for d in dens) and all(s > 0 for s in sizes)
                and ratios and all(r > 0 for r in ratios),
                lambda: f"densities, fixed_sizes and fixed_ratios must be positive, got {dens}, "
                f"{sizes} and {ratios}")
    ctx.enforce(len(ctx.attr("variances")) == 4,
                lambda: f"variances must hold 4 values, got {list(ctx.attr('variances'))}")
    p = _count(ctx.attrs)
    shape = ([x[2] * x[3] * p if x[2] >= 0 and x[3] >= 0 else -1, 4]
             if ctx.attr("flatten_to_2d") else [x[2], x[3], p, 4])
    ctx.set_output("Boxes", shape, ctx.input_dtype("Input"))
    ctx.set_output("Variances", shape, ctx.input_dtype("Input"))


@density_prior_box.kernel(dtypes=FLOATS)
def density_prior_box_kernel(attrs, x, image):
    h, w = x.shape[2:]
    ih, iw = image.shape[2:]
    step_w = attrs["step_w"] or iw / w
    step_h = attrs["step_h"] or ih / h
    average = int((step_w + step_h) * 0.5)
    offset = attrs["offset"]
    # Per cell: the boxes' centre offsets from the cell's centre and their sizes, [P].
    dx, dy, bw, bh = [], [], [], []
    for size, density in zip(attrs["fixed_sizes"], attrs["densities"], strict=True):
        shift = average // density
        grid = np.arange(density) * shift - average / 2.0 + shift / 2.0
        for ratio in attrs["fixed_ratios"]:
            gy, gx = np.meshgrid(grid, grid, indexing="ij")
            dx.append(gx.ravel())
            dy.append(gy.ravel())
            bw.append(np.full(density * density, size * np.sqrt(ratio)))
            bh.append(np.full(density * density, size / np.sqrt(ratio)))
    dx, dy, bw, bh = (np.concatenate(a) for a in (dx, dy, bw, bh))
    cx = ((np.arange(w) + offset) * step_w)[None, :, None] + dx[None, None, :]
    cy = ((np.arange(h) + offset) * step_h)[:, None, None] + dy[None, None, :]
    cx, cy = np.broadcast_arrays(cx, cy)
    boxes = np.stack([np.maximum((cx - bw / 2) / iw, 0), np.maximum((cy - bh / 2) / ih, 0),
                      np.minimum((cx + bw / 2) / iw, 1), np.minimum((cy + bh / 2) / ih, 1)],
                     axis=-1).astype(x.dtype)
    if attrs["clip"]:
        boxes = np.clip(boxes, 0, 1)
    variances = np.broadcast_to(np.asarray(attrs["variances"], x.dtype), boxes.shape).copy()
    if attrs["flatten_to_2d"]:
        return boxes.reshape(-1, 4), variances.reshape(-1, 4)
    return boxes, variances
