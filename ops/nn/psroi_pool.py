"""psroi_pool (+ psroi_pool_grad): position-sensitive ROI average pooling (R-FCN).

X [N, output_channels PH PW, H, W]; ROIs [R, 4] (x1, y1, x2, y2), images by RoisNum (int
[N]) or else ROIs' LoD. For each ROI, with x1' = round(x1) s, x2' = (round(x2) + 1) s
(s = spatial_scale; likewise y), roi_h = max(y2' - y1', 0.1), roi_w likewise, bin (ph, pw)
covers rows [floor(ph roi_h / PH + y1'), ceil((ph + 1) roi_h / PH + y1')) clipped to
[0, H] (columns likewise), and

    Out[r, c, ph, pw] = mean of X[image, (c PH + ph) PW + pw] over the bin (0 if empty)

Every bin is summed at once from per-channel summed-area tables. dX spreads each bin's
dOut / area evenly over its pixels (ROIs get no gradient).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.nn.roi_align import batch_of_rois
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

psroi_pool = register_op(
    "psroi_pool",
    inputs=[In("X", "[N, output_channels * PH * PW, H, W]"),
            In("ROIs", "[R, 4], LoD: ROIs per image"),
            In("RoisNum", "int [N]: ROIs per image (instead of the LoD)", dispensable=True)],
    outputs=[Out("Out", "[R, output_channels, PH, PW]")],
    attrs=[Attr("pooled_height", "int", 1, "output rows per ROI"),
           Attr("pooled_width", "int", 1, "output columns per ROI"),
           Attr("output_channels", "int", 1, "channels of Out"),
           Attr("spatial_scale", "float", 1.0, "input pixels to feature-map pixels")],
    doc=__doc__,
)


@psroi_pool.infer_shape
def _(ctx):
    x, rois = ctx.input_shape("X"), ctx.input_shape("ROIs")
    ph, pw, oc = (ctx.attr(a) for a in ("pooled_height", "pooled_width", "output_channels"))
    ctx.enforce(len(x) == 4, lambda: f"X must be [N, C, H, W], got {shape_str(x)}")
    ctx.enforce(len(rois) == 2 and rois[1] in (-1, 4),
                lambda: f"ROIs must be [R, 4], got {shape_str(rois)}")
    ctx.enforce(ph > 0 and pw > 0 and oc > 0,
                lambda: f"pooled_height, pooled_width and output_channels must be > 0, got {ph}, "
                f"{pw} and {oc}")
    ctx.enforce(x[1] < 0 or x[1] == oc * ph * pw, lambda:
                f"X must have output_channels * pooled_height * pooled_width = {oc * ph * pw} "
                f"channels, got {x[1]}")
    ctx.enforce(ctx.attr("spatial_scale") > 0,
                lambda: f"spatial_scale must be > 0, got {ctx.attr('spatial_scale')}")
    ctx.set_output("Out", [rois[0], oc, ph, pw], ctx.input_dtype("X"))


def _round_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def bins(boxes: np.ndarray, attrs, h: int, w: int):
    """Per ROI and bin: (row start, row end, column start, column end), each [R, PH, PW]."""
    ph, pw, s = attrs["pooled_height"], attrs["pooled_width"], attrs["spatial_scale"]
    r = _round_away(boxes.astype(np.float64))
    x1, y1 = r[:, 0] * s, r[:, 1] * s
    x2, y2 = (r[:, 2] + 1) * s, (r[:, 3] + 1) * s
    bh = np.maximum(y2 - y1, 0.1) / ph
    bw = np.maximum(x2 - x1, 0.1) / pw
    i = np.arange(ph)[None, :, None]
    j = np.arange(pw)[None, None, :]
    hs = np.clip(np.floor(bh[:, None, None] * i + y1[:, None, None]), 0, h).astype(np.int64)
    he = np.clip(np.ceil(bh[:, None, None] * (i + 1) + y1[:, None, None]), 0, h).astype(np.int64)
    ws = np.clip(np.floor(bw[:, None, None] * j + x1[:, None, None]), 0, w).astype(np.int64)
    we = np.clip(np.ceil(bw[:, None, None] * (j + 1) + x1[:, None, None]), 0, w).astype(np.int64)
    shape = (boxes.shape[0], ph, pw)
    return tuple(np.broadcast_to(a, shape) for a in (hs, he, ws, we))


def _channels(attrs):
    """[OC, PH, PW]: the input channel each output bin reads."""
    oc, ph, pw = attrs["output_channels"], attrs["pooled_height"], attrs["pooled_width"]
    return np.arange(oc * ph * pw).reshape(oc, ph, pw)


@psroi_pool.kernel(dtypes=FLOATS, lod=True)
def psroi_pool_kernel(attrs, x, rois, rois_num):
    data, boxes = x.numpy(), rois.numpy()
    n, _, h, w = data.shape
    batch = batch_of_rois(rois, rois_num, n, "psroi_pool")
    table = np.zeros((n, data.shape[1], h + 1, w + 1), np.float64)
    table[:, :, 1:, 1:] = data.cumsum(axis=2).cumsum(axis=3)
    hs, he, ws, we = (a[:, None] for a in bins(boxes, attrs, h, w))  # [R, 1, PH, PW]
    img, ch = batch[:, None, None, None], _channels(attrs)[None]
    total = (table[img, ch, he, we] - table[img, ch, hs, we] - table[img, ch, he, ws]
             + table[img, ch, hs, ws])
    area = (he - hs) * (we - ws)
    out = np.where(area > 0, total / np.maximum(area, 1), 0).astype(data.dtype)
    return LoDTensor.unchecked(out)


@psroi_pool.grad_maker
def _(g):
    return [g.grad_op("psroi_pool_grad",
                      inputs={"X": g.input("X"), "ROIs": g.input("ROIs"),
                              "RoisNum": g.input("RoisNum"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a.name: g.attr(a.name) for a in psroi_pool.attrs})]


psroi_pool_grad = register_op(
    "psroi_pool_grad",
    inputs=[In("X", no_need_buffer=True), In("ROIs"), In("RoisNum", dispensable=True),
            In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=list(psroi_pool.attrs),
    key_inputs=["Out@GRAD"],
    doc="dX: each bin's dOut / area spread over the bin's pixels of its channel.",
)


@psroi_pool_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))


@psroi_pool_grad.kernel(dtypes=FLOATS, lod=True)
def psroi_pool_grad_kernel(attrs, x, rois, rois_num, dout):
    n, c, h, w = x.shape
    d, boxes = dout.numpy(), rois.numpy()
    batch = batch_of_rois(rois, rois_num, n, "psroi_pool")
    hs, he, ws, we = (np.broadcast_to(a[:, None], d.shape) for a in bins(boxes, attrs, h, w))
    area = (he - hs) * (we - ws)
    share = np.where(area > 0, d / np.maximum(area, 1), 0)
    img = np.broadcast_to(batch[:, None, None, None], d.shape)
    ch = np.broadcast_to(_channels(attrs)[None], d.shape)
    # Each bin adds its share to a rectangle: four corners of a difference table, then
    # running sums over rows and columns fill the rectangles in.
    diff = np.zeros((n, c, h + 1, w + 1), np.float64)
    for rows, cols, sign in ((hs, ws, 1), (hs, we, -1), (he, ws, -1), (he, we, 1)):
        np.add.at(diff, (img, ch, rows, cols), sign * share)
    dx = diff.cumsum(axis=2).cumsum(axis=3)[:, :, :h, :w]
    return LoDTensor.unchecked(dx.astype(d.dtype))
