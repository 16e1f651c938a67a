"""prroi_pool (+ prroi_pool_grad): precise ROI pooling, the exact average of the bilinear
interpolant of X over each bin (PrRoI Pooling, IoU-Net).

X [N, C, H, W]; ROIs [R, 4] (x1, y1, x2, y2), images by BatchRoINums (int [N]) or else
ROIs' LoD. With corners scaled by spatial_scale (not rounded), bin (ph, pw) is the
rectangle [y1 + ph bh, y1 + (ph + 1) bh] x [x1 + pw bw, ...] (bh = max(y2 - y1, 0) / PH),
and

    Out[r, c, ph, pw] = (1 / (bh bw)) integral over the bin of f_c(y, x)

where f_c interpolates X[image, c] bilinearly and is 0 beyond its pixels' neighbours (0 for
an empty bin). The interpolant is a sum of separable hat functions, so the integral is
Ky X Kx^T with Ky[ph, i] the integral of max(0, 1 - |y - i|) over the bin's rows (Kx
likewise): one product per ROI. dX adds Ky^T dOut Kx / (bh bw) back; the ROIs' gradient
(Paddle computes one) is not implemented.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.nn.roi_align import batch_of_rois
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

prroi_pool = register_op(
    "prroi_pool",
    inputs=[In("X", "[N, C, H, W]"), In("ROIs", "[R, 4], LoD: ROIs per image"),
            In("BatchRoINums", "int [N]: ROIs per image (instead of the LoD)",
               dispensable=True)],
    outputs=[Out("Out", "[R, C, pooled_height, pooled_width]")],
    attrs=[Attr("spatial_scale", "float", 1.0, "input pixels to feature-map pixels"),
           Attr("pooled_height", "int", 1, "output rows per ROI"),
           Attr("pooled_width", "int", 1, "output columns per ROI")],
    doc=__doc__,
)


@prroi_pool.infer_shape
def _(ctx):
    x, rois = ctx.input_shape("X"), ctx.input_shape("ROIs")
    ph, pw = ctx.attr("pooled_height"), ctx.attr("pooled_width")
    ctx.enforce(len(x) == 4, lambda: f"X must be [N, C, H, W], got {shape_str(x)}")
    ctx.enforce(len(rois) == 2 and rois[1] in (-1, 4),
                lambda: f"ROIs must be [R, 4], got {shape_str(rois)}")
    ctx.enforce(ph > 0 and pw > 0,
                lambda: f"pooled_height and pooled_width must be > 0, got {ph} and {pw}")
    ctx.enforce(ctx.attr("spatial_scale") > 0,
                lambda: f"spatial_scale must be > 0, got {ctx.attr('spatial_scale')}")
    ctx.set_output("Out", [rois[0], x[1], ph, pw], ctx.input_dtype("X"))


def _hat_area(t: np.ndarray) -> np.ndarray:
    """The integral of max(0, 1 - |u|) from -inf to t."""
    t = np.clip(t, -1.0, 1.0)
    return np.where(t <= 0, (t + 1) ** 2 / 2, 1 - (1 - t) ** 2 / 2)


def _weights(start: float, size: float, bins: int, pixels: int) -> np.ndarray:
    """[bins, pixels]: each bin's integral of each pixel's hat along one axis."""
    lo = start + size * np.arange(bins)
    hi = lo + size
    i = np.arange(pixels)
    return _hat_area(hi[:, None] - i[None, :]) - _hat_area(lo[:, None] - i[None, :])


def roi_weights(box, attrs, h: int, w: int):
    """(Ky [PH, H], Kx [PW, W], bin area) of one ROI."""
    s = attrs["spatial_scale"]
    x1, y1, x2, y2 = (float(v) * s for v in box)
    bh = max(y2 - y1, 0.0) / attrs["pooled_height"]
    bw = max(x2 - x1, 0.0) / attrs["pooled_width"]
    return (_weights(y1, bh, attrs["pooled_height"], h),
            _weights(x1, bw, attrs["pooled_width"], w), bh * bw)


@prroi_pool.kernel(dtypes=FLOATS, lod=True)
def prroi_pool_kernel(attrs, x, rois, rois_num):
    data, boxes = x.numpy(), rois.numpy()
    n, c, h, w = data.shape
    batch = batch_of_rois(rois, rois_num, n, "prroi_pool")
    out = np.zeros((boxes.shape[0], c, attrs["pooled_height"], attrs["pooled_width"]),
                   data.dtype)
    for r in range(boxes.shape[0]):  # one matrix product per ROI
        ky, kx, area = roi_weights(boxes[r], attrs, h, w)
        if area > 0:
            out[r] = np.einsum("ph,chw,qw->cpq", ky, data[batch[r]], kx,
                               optimize=True) / area
    return LoDTensor.unchecked(out)


@prroi_pool.grad_maker
def _(g):
    return [g.grad_op("prroi_pool_grad",
                      inputs={"X": g.input("X"), "ROIs": g.input("ROIs"),
                              "BatchRoINums": g.input("BatchRoINums"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a.name: g.attr(a.name) for a in prroi_pool.attrs})]


prroi_pool_grad = register_op(
    "prroi_pool_grad",
    inputs=[In("X", no_need_buffer=True), In("ROIs"), In("BatchRoINums", dispensable=True),
            In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=list(prroi_pool.attrs),
    key_inputs=["Out@GRAD"],
    doc="dX: Ky^T dOut Kx / area of each ROI added into its image.",
)


@prroi_pool_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))


@prroi_pool_grad.kernel(dtypes=FLOATS, lod=True)
def prroi_pool_grad_kernel(attrs, x, rois, rois_num, dout):
    n, c, h, w = x.shape
    d, boxes = dout.numpy(), rois.numpy()
    batch = batch_of_rois(rois, rois_num, n, "prroi_pool")
    dx = np.zeros((n, c, h, w), d.dtype)
    for r in range(boxes.shape[0]):
        ky, kx, area = roi_weights(boxes[r], attrs, h, w)
        if area > 0:
            dx[batch[r]] += np.einsum("ph,cpq,qw->chw", ky, d[r], kx, optimize=True) / area
    return LoDTensor.unchecked(dx)
