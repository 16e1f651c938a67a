"""roi_pool (+ roi_pool_grad): max pooling of regions of interest (Fast R-CNN).

X [N, C, H, W]; ROIs [R, 4] (x1, y1, x2, y2) in input pixels, assigned to images by
RoisNum (int [N]) or else by ROIs' LoD. For each ROI, with corners rounded after scaling
(x1' = round(x1 spatial_scale), ..., halves away from zero), roi_h = max(y2' - y1' + 1, 1)
and roi_w likewise, bin (ph, pw) covers rows

    [floor(ph roi_h / PH) + y1', ceil((ph + 1) roi_h / PH) + y1')   clipped to [0, H]

and the columns likewise. Out[r, c, ph, pw] is the bin's maximum (0 for an empty bin);
Argmax (int64) its flat position h W + w in the map, the first in row-major order
(-1 for an empty bin).

dX[n, c, h, w] adds dOut of every bin whose Argmax is (h, w); ROIs get no gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.nn.roi_align import batch_of_rois
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

roi_pool = register_op(
    "roi_pool",
    inputs=[In("X", "[N, C, H, W]"), In("ROIs", "[R, 4], LoD: ROIs per image"),
            In("RoisNum", "int [N]: ROIs per image (instead of the LoD)", dispensable=True)],
    outputs=[Out("Out", "[R, C, pooled_height, pooled_width]"),
             Out("Argmax", "int64, Out's shape: the flat position of each maximum")],
    attrs=[Attr("pooled_height", "int", 1, "output rows per ROI"),
           Attr("pooled_width", "int", 1, "output columns per ROI"),
           Attr("spatial_scale", "float", 1.0, "input pixels to feature-map pixels")],
    doc=__doc__,
)


@roi_pool.infer_shape
def _(ctx):
    x, rois = ctx.input_shape("X"), ctx.input_shape("ROIs")
    ctx.enforce(len(x) == 4, lambda: f"X must be [N, C, H, W], got {shape_str(x)}")
    ctx.enforce(len(rois) == 2 and rois[1] in (-1, 4),
                lambda: f"ROIs must be [R, 4], got {shape_str(rois)}")
    ph, pw = ctx.attr("pooled_height"), ctx.attr("pooled_width")
    ctx.enforce(ph > 0 and pw > 0,
                lambda: f"pooled_height and pooled_width must be > 0, got {ph} and {pw}")
    ctx.enforce(ctx.attr("spatial_scale") > 0,
                lambda: f"spatial_scale must be > 0, got {ctx.attr('spatial_scale')}")
    if ctx.has_input("RoisNum"):
        ctx.enforce(len(ctx.input_shape("RoisNum")) == 1,
                    lambda: f"RoisNum must be [N], got {shape_str(ctx.input_shape('RoisNum'))}")
    shape = [rois[0], x[1], ph, pw]
    ctx.set_output("Out", shape, ctx.input_dtype("X"))
    ctx.set_output("Argmax", shape, np.int64)


def _round_away(v: float) -> int:
    return int(np.sign(v) * np.floor(abs(v) + 0.5))


def bin_edges(start: int, end: int, bins: int, limit: int):
    """(lows, highs) of the bins along one axis, clipped to [0, limit]."""
    size = max(end - start + 1, 1)
    step = size / bins
    k = np.arange(bins)
    low = np.clip(np.floor(k * step).astype(np.int64) + start, 0, limit)
    high = np.clip(np.ceil((k + 1) * step).astype(np.int64) + start, 0, limit)
    return low, high


def pool_one(fmap: np.ndarray, box, attrs):
    """(max [C, PH, PW], flat argmax [C, PH, PW]) of one ROI over fmap [C, H, W]."""
    c, h, w = fmap.shape
    ph, pw, scale = attrs["pooled_height"], attrs["pooled_width"], attrs["spatial_scale"]
    x1, y1, x2, y2 = (_round_away(float(v) * scale) for v in box)
    rlo, rhi = bin_edges(y1, y2, ph, h)
    clo, chi = bin_edges(x1, x2, pw, w)
    out = np.zeros((c, ph, pw), fmap.dtype)
    arg = np.full((c, ph, pw), -1, np.int64)
    top, bottom = int(rlo.min()), int(rhi.max())
    if bottom <= top:
        return out, arg
    rows_of_roi = fmap[:, top:bottom]  # only the ROI's rows are scanned
    # Columns first, then rows: the row-major first maximum, as Paddle's scan finds it.
    colmax = np.full((c, bottom - top, pw), -np.inf, fmap.dtype)
    colarg = np.zeros((c, bottom - top, pw), np.int64)
    for j in range(pw):
        if chi[j] > clo[j]:
            part = rows_of_roi[:, :, clo[j]:chi[j]]
            colarg[:, :, j] = np.argmax(part, axis=2) + clo[j]
            colmax[:, :, j] = np.take_along_axis(part, colarg[:, :, j:j + 1] - clo[j],
                                                 axis=2)[..., 0]
    nonempty_cols = chi > clo
    for i in range(ph):
        if rhi[i] <= rlo[i]:
            continue
        lo, hi = rlo[i] - top, rhi[i] - top
        part = colmax[:, lo:hi, :]
        row = np.argmax(part, axis=1)  # [C, PW]
        value = np.take_along_axis(part, row[:, None, :], axis=1)[:, 0, :]
        col = np.take_along_axis(colarg[:, lo:hi, :], row[:, None, :], axis=1)[:, 0]
        out[:, i, nonempty_cols] = value[:, nonempty_cols]
        arg[:, i, nonempty_cols] = ((row + rlo[i]) * w + col)[:, nonempty_cols]
    return out, arg


@roi_pool.kernel(dtypes=FLOATS, lod=True)
def roi_pool_kernel(attrs, x, rois, rois_num):
    data, boxes = x.numpy(), rois.numpy()
    n, c = data.shape[:2]
    batch = batch_of_rois(rois, rois_num, n, "roi_pool")
    shape = (boxes.shape[0], c, attrs["pooled_height"], attrs["pooled_width"])
    out, arg = np.zeros(shape, data.dtype), np.full(shape, -1, np.int64)
    for r in range(boxes.shape[0]):  # ROIs differ in their bins; each is vectorised
        out[r], arg[r] = pool_one(data[batch[r]], boxes[r], attrs)
    return LoDTensor.unchecked(out), LoDTensor.unchecked(arg)


@roi_pool.grad_maker
def _(g):
    return [g.grad_op("roi_pool_grad",
                      inputs={"X": g.input("X"), "ROIs": g.input("ROIs"),
                              "RoisNum": g.input("RoisNum"), "Argmax": g.output("Argmax"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a: g.attr(a) for a in ("pooled_height", "pooled_width",
                                                    "spatial_scale")})]


roi_pool_grad = register_op(
    "roi_pool_grad",
    inputs=[In("X", no_need_buffer=True), In("ROIs"), In("RoisNum", dispensable=True),
            In("Argmax"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=list(roi_pool.attrs),
    key_inputs=["Out@GRAD"],
    doc="dX: each bin's dOut added at its Argmax in its ROI's image.",
)


@roi_pool_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))


@roi_pool_grad.kernel(dtypes=FLOATS, lod=True)
def roi_pool_grad_kernel(attrs, x, rois, rois_num, argmax, dout):
    n, c, h, w = x.shape
    d, arg = dout.numpy(), argmax.numpy()
    batch = batch_of_rois(rois, rois_num, n, "roi_pool")
    dx = np.zeros(n * c * h * w, d.dtype)
    hit = arg >= 0
    image = np.broadcast_to(batch[:, None, None, None], arg.shape)
    channel = np.broadcast_to(np.arange(c)[None, :, None, None], arg.shape)
    flat = (image * c + channel) * (h * w) + arg
    np.add.at(dx, flat[hit], d[hit])
    return LoDTensor.unchecked(dx.reshape(n, c, h, w))
