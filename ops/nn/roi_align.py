"""roi_align (+ roi_align_grad): bilinear pooling of regions of interest (Mask R-CNN /
Faster R-CNN heads).

X [N, C, H, W]; ROIs [R, 4] boxes (x1, y1, x2, y2) in input pixels, assigned to images by
RoisNum (int [N]: ROIs per image) or else by ROIs' LoD. For each ROI, with
o = 0.5 when `aligned` (else 0):

    corners scaled by spatial_scale and shifted by -o; roi_w = x2 - x1, roi_h = y2 - y1
    (each at least 1 when not aligned); bins of roi_h / pooled_height by
    roi_w / pooled_width; each bin averages grid_h x grid_w bilinear samples at the
    centres of an even sub-grid (grid = sampling_ratio, or ceil(roi size / pooled size)
    when sampling_ratio <= 0)

A sample outside [-1, H] x [-1, W] counts as 0; inside, its coordinates clamp to the map
(below 0 to 0, at or beyond the last row or column to it). Out is [R, C, pooled_height,
pooled_width].

Out is linear in X: dX adds each bin's dOut / (grid_h grid_w) back into the four pixels
of each of its samples, with the same bilinear weights (ROIs get no gradient, as in
Paddle).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

roi_align = register_op(
    "roi_align",
    inputs=[In("X", "[N, C, H, W]"), In("ROIs", "[R, 4], LoD: ROIs per image"),
            In("RoisNum", "int [N]: ROIs per image (instead of the LoD)", dispensable=True)],
    outputs=[Out("Out", "[R, C, pooled_height, pooled_width]")],
    attrs=[Attr("pooled_height", "int", 1, "output rows per ROI"),
           Attr("pooled_width", "int", 1, "output columns per ROI"),
           Attr("spatial_scale", "float", 1.0, "input pixels to feature-map pixels"),
           Attr("sampling_ratio", "int", -1, "samples per bin side (<= 0: adaptive)"),
           Attr("aligned", "bool", False, "shift by half a pixel (Detectron2's ROIAlignV2)")],
    doc=__doc__,
)


@roi_align.infer_shape
def _(ctx):
    x, rois = ctx.input_shape("X"), ctx.input_shape("ROIs")
    ctx.enforce(len(x) == 4, lambda: f"X must be [N, C, H, W], got {shape_str(x)}")
    ctx.enforce(len(rois) == 2 and rois[1] in (-1, 4), lambda: f"ROIs must be [R, 4], got "
                                                       f"{shape_str(rois)}")
    ph, pw = ctx.attr("pooled_height"), ctx.attr("pooled_width")
    ctx.enforce(ph > 0 and pw > 0, lambda: f"pooled_height and pooled_width must be > 0, got "
                                   f"{ph} and {pw}")
    ctx.enforce(ctx.attr("spatial_scale") > 0,
                lambda: f"spatial_scale must be > 0, got {ctx.attr('spatial_scale')}")
    ctx.set_output("Out", [rois[0], x[1], ph, pw], ctx.input_dtype("X"))


def _axis_samples(start: float, size: float, bins: int, grid: int, limit: int):
    """Per sample along one axis: (low index, high index, low weight, high weight, valid)."""
    step = size / bins
    pos = start + (np.arange(bins)[:, None] * step
                   + (np.arange(grid)[None, :] + 0.5) * step / grid).reshape(-1)
    valid = (pos >= -1.0) & (pos <= limit)
    pos = np.maximum(pos, 0.0)
    low = np.floor(pos).astype(np.int64)
    at_edge = low >= limit - 1
    low = np.where(at_edge, limit - 1, low)
    high = np.where(at_edge, limit - 1, low + 1)
    pos = np.where(at_edge, low, pos)
    frac = pos - low
    return low, high, 1 - frac, frac, valid


def batch_of_rois(rois, rois_num, n: int, op_type: str = "roi_align") -> np.ndarray:
    """The image of each ROI, from RoisNum (ROIs per image) or else ROIs' LoD; shared by
    the ROI pooling ops."""
    if rois_num is not None:
        counts = np.asarray(rois_num).reshape(-1).astype(np.int64)
    elif rois.lod_level:
        counts = np.diff(rois.offsets[0])
    else:
        raise ValueError(f"{op_type}: ROIs needs a LoD (ROIs per image) or RoisNum")
    if counts.size != n or (counts < 0).any() or counts.sum() != rois.shape[0]:
        raise ValueError(f"{op_type}: ROIs per image {counts.tolist()} must cover the "
                         f"{rois.shape[0]} ROIs of the {n} images")
    boxes = rois.numpy()
    if not np.isfinite(boxes).all():
        bad = int(np.flatnonzero(~np.isfinite(boxes).all(axis=-1))[0])
        raise ValueError(f"{op_type}: ROIs must be finite, but ROI {bad} is "
                         f"{boxes[bad].tolist()}")
    return np.repeat(np.arange(n), counts)


def _roi_samples(attrs, box, h: int, w: int):
    """One ROI's bilinear taps: ((rows, cols, weight) for the 4 corners, grid_h, grid_w);
    rows [Sy, 1] and cols [1, Sx] index the feature map, weight [Sy, Sx] is zero for
    samples outside it."""
    ph, pw = attrs["pooled_height"], attrs["pooled_width"]
    scale, ratio = attrs["spatial_scale"], attrs["sampling_ratio"]
    offset = 0.5 if attrs["aligned"] else 0.0
    x1, y1, x2, y2 = (float(v) * scale - offset for v in box)
    roi_w, roi_h = x2 - x1, y2 - y1
    if not attrs["aligned"]:
        roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
    gh = ratio if ratio > 0 else int(np.ceil(roi_h / ph))
    gw = ratio if ratio > 0 else int(np.ceil(roi_w / pw))
    ylo, yhi, wyl, wyh, vy = _axis_samples(y1, roi_h, ph, gh, h)
    xlo, xhi, wxl, wxh, vx = _axis_samples(x1, roi_w, pw, gw, w)
    inside = np.outer(vy, vx)
    taps = [(rows[:, None], cols[None, :], np.outer(wy, wx) * inside)
            for rows, wy in ((ylo, wyl), (yhi, wyh)) for cols, wx in ((xlo, wxl), (xhi, wxh))]
    return taps, gh, gw


@roi_align.kernel(dtypes=FLOATS, lod=True)
def roi_align_kernel(attrs, x, rois, rois_num):
    data, boxes = x.numpy(), rois.numpy()
    n, c, h, w = data.shape
    ph, pw = attrs["pooled_height"], attrs["pooled_width"]
    batch = batch_of_rois(rois, rois_num, n)
    out = np.zeros((boxes.shape[0], c, ph, pw), data.dtype)
    for r in range(boxes.shape[0]):  # ROIs differ in their sample grids; each is vectorised
        taps, gh, gw = _roi_samples(attrs, boxes[r], h, w)
        fmap = data[batch[r]]
        value = sum(fmap[:, rows, cols] * weight for rows, cols, weight in taps)
        count = max(gh * gw, 1)
        out[r] = value.reshape(c, ph, gh, pw, gw).sum(axis=(2, 4)) / count
    return LoDTensor.unchecked(out)


@roi_align.grad_maker
def _(g):
    return [g.grad_op("roi_align_grad",
                      inputs={"X": g.input("X"), "ROIs": g.input("ROIs"),
                              "RoisNum": g.input("RoisNum"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a: g.attr(a) for a in ("pooled_height", "pooled_width",
                                                    "spatial_scale", "sampling_ratio",
                                                    "aligned")})]


roi_align_grad = register_op(
    "roi_align_grad",
    inputs=[In("X", no_need_buffer=True), In("ROIs"), In("RoisNum", dispensable=True),
            In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[a for a in roi_align.attrs],
    key_inputs=["Out@GRAD"],
    doc="dX: each bin's dOut / (grid_h grid_w) added back into its samples' four pixels "
        "with their bilinear weights.",
)


@roi_align_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))


@roi_align_grad.kernel(dtypes=FLOATS, lod=True)
def roi_align_grad_kernel(attrs, x, rois, rois_num, dout):
    boxes, d = rois.numpy(), dout.numpy()
    n, c, h, w = x.shape
    ph, pw = attrs["pooled_height"], attrs["pooled_width"]
    batch = batch_of_rois(rois, rois_num, n)
    dx = np.zeros((n, c, h, w), d.dtype)
    for r in range(boxes.shape[0]):
        taps, gh, gw = _roi_samples(attrs, boxes[r], h, w)
        per_sample = np.broadcast_to((d[r] / max(gh * gw, 1))[:, :, None, :, None],
                                     (c, ph, gh, pw, gw)).reshape(c, ph * gh, pw * gw)
        for rows, cols, weight in taps:
            np.add.at(dx[batch[r]], (slice(None), rows, cols), per_sample * weight)
    return LoDTensor.unchecked(dx)
