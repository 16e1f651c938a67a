"""roi_perspective_transform (+ _grad): each quadrilateral RoI of X warped to a
transformed_height x transformed_width map (OCR's text-line rectification; Paddle's
detection/roi_perspective_transform_op.cc).

ROIs [R, 8] hold (x0, y0) .. (x3, y3), the corners clockwise from the top left, with one
LoD level naming each RoI's image; corners are scaled by spatial_scale. Per RoI, as
Paddle computes it (in X's dtype, with its 1e-4 tolerances):

    height h' = max(2, transformed_height),  width w' = clip(round(mean of the top and
    bottom edges * (h' - 1) / mean of the side edges) + 1, 2, transformed_width)
    TransformMatrix M (3 x 3, row-major, M[2][2] = 1) maps (0, 0), (w'-1, 0),
    (w'-1, h'-1), (0, h'-1) to the four corners (a 1e-5 guards the solve)
    for each output (oh, ow): (u, v, w) = M (ow, oh, 1), source (u / w, v / w);
    Out = X bilinearly sampled there (coordinates in (-0.5, size - 0.5), clamped to the
    last row / column), Mask = 1, when the source lies in the quadrilateral (or on its
    edges) and inside the map; else Out = 0, Mask = 0

dX adds dOut back with the same bilinear weights (the RoIs get no gradient).
Out2InIdx and Out2InWeights are Paddle's GPU intermediates (zeros here, as the CPU
kernel leaves them unwritten).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_TOL = 1e-4
_ATTRS = [Attr("spatial_scale", "float", 1.0, "scales the RoI corners to X's grid"),
          Attr("transformed_height", "int", 1, "the output height"),
          Attr("transformed_width", "int", 1, "the output width")]

roi_perspective_transform = register_op(
    "roi_perspective_transform",
    inputs=[In("X", "[N, C, H, W]"),
            In("ROIs", "[R, 8] quadrilaterals (x0, y0, ..., x3, y3), LoD: RoIs per image")],
    outputs=[Out("Out", "[R, C, th, tw]"), Out("Mask", "int32 [R, 1, th, tw]"),
             Out("TransformMatrix", "[R, 9]"),
             Out("Out2InIdx", "int32 [R, C, th, tw] (GPU only; zeros)", dispensable=True),
             Out("Out2InWeights", "[R, C, th, tw] (GPU only; zeros)", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["X"],
    doc=__doc__,
)


@roi_perspective_transform.infer_shape
def _(ctx):
    x, rois = ctx.input_shape("X"), ctx.input_shape("ROIs")
    ctx.enforce(len(x) == 4, lambda: f"X must be NCHW, got {shape_str(x)}")
    ctx.enforce(len(rois) == 2 and rois[1] in (8, -1),
                lambda: f"ROIs must be [num_rois, 8] (x0, y0, ..., x3, y3), got {shape_str(rois)}")
    th, tw = ctx.attr("transformed_height"), ctx.attr("transformed_width")
    ctx.enforce(th > 0 and tw > 0, lambda: f"transformed_height and transformed_width must be > 0, "
                                   f"got {th} and {tw}")
    ctx.enforce(ctx.attr("spatial_scale") > 0,
                lambda: f"spatial_scale must be > 0, got {ctx.attr('spatial_scale')}")
    out = [rois[0], x[1], th, tw]
    ctx.set_output("Out", out, ctx.input_dtype("X"))
    ctx.share_lod("ROIs", "Out")
    ctx.set_output("Mask", [rois[0], 1, th, tw], np.int32)
    ctx.set_output("TransformMatrix", [rois[0], 9], ctx.input_dtype("X"))
    if ctx.has_output("Out2InIdx"):
        ctx.set_output("Out2InIdx", out, np.int32)
    if ctx.has_output("Out2InWeights"):
        ctx.set_output("Out2InWeights", out, ctx.input_dtype("X"))


def _ge(a, b):
    return (a > b) | (np.abs(a - b) < _TOL)


def _le(a, b):
    return (a < b) | (np.abs(a - b) < _TOL)


def _in_quad(x, y, rx, ry) -> np.ndarray:
    """Paddle's test of points (x, y) against the quadrilateral (edges count as inside)."""
    inside = np.zeros(x.shape, bool)
    crossings = np.zeros(x.shape, np.int64)
    edges = [(rx[i], ry[i], rx[(i + 1) % 4], ry[(i + 1) % 4]) for i in range(4)]
    for xs, ys, xe, ye in edges:
        if abs(ys - ye) < _TOL:
            inside |= ((np.abs(y - ys) < _TOL) & (np.abs(y - ye) < _TOL)
                       & _ge(x, min(xs, xe)) & _le(x, max(xs, xe)))
        else:
            cross = (y - ys) * (xe - xs) / (ye - ys) + xs
            inside |= (np.abs(cross - x) < _TOL) & _ge(y, min(ys, ye)) & _le(y, max(ys, ye))
    for xs, ys, xe, ye in edges:
        if abs(ys - ye) < _TOL:
            continue
        counted = ~(_le(y, min(ys, ye)) | ((y - max(ys, ye)) > _TOL))
        cross = (y - ys) * (xe - xs) / (ye - ys) + xs
        inside |= counted & (np.abs(cross - x) < _TOL)
        crossings += counted & ((cross - x) > _TOL)
    return inside | (crossings % 2 == 1)


def _matrix(th: int, tw: int, rx, ry, dtype) -> np.ndarray:
    t = dtype.type
    x0, x1, x2, x3 = rx
    y0, y1, y2, y3 = ry
    side = [np.sqrt((a - b) * (a - b) + (c - d) * (c - d))
            for a, b, c, d in ((x0, x1, y0, y1), (x1, x2, y1, y2), (x2, x3, y2, y3),
                               (x3, x0, y3, y0))]
    est_h, est_w = (side[1] + side[3]) / t(2), (side[0] + side[2]) / t(2)
    nh = max(2, th)
    nw = max(2, min(int(np.round(est_w * t(nh - 1) / est_h)) + 1, tw))
    dx1, dx2, dx3 = x1 - x2, x3 - x2, x0 - x1 + x2 - x3
    dy1, dy2, dy3 = y1 - y2, y3 - y2, y0 - y1 + y2 - y3
    det = dx1 * dy2 - dx2 * dy1 + t(1e-5)
    m = np.empty(9, dtype)
    m[6] = (dx3 * dy2 - dx2 * dy3) / det / t(nw - 1)
    m[7] = (dx1 * dy3 - dx3 * dy1) / det / t(nh - 1)
    m[8] = 1
    m[3] = (y1 - y0 + m[6] * t(nw - 1) * y1) / t(nw - 1)
    m[4] = (y3 - y0 + m[7] * t(nh - 1) * y3) / t(nh - 1)
    m[5] = y0
    m[0] = (x1 - x0 + m[6] * t(nw - 1) * x1) / t(nw - 1)
    m[1] = (x3 - x0 + m[7] * t(nh - 1) * x3) / t(nh - 1)
    m[2] = x0
    return m


def _images(rois: LoDTensor) -> np.ndarray:
    if not rois.offsets:
        raise KernelError("roi_perspective_transform: ROIs must carry a LoD (the RoIs of "
                          "each image)")
    offsets = np.asarray(rois.offsets[-1])
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def _samples(attrs, x_shape, roi, dtype):
    """For one RoI: its matrix, and per output cell whether it samples X, the four
    neighbour indices (row, col) and their bilinear weights."""
    _, _, h, w = x_shape
    th, tw = attrs["transformed_height"], attrs["transformed_width"]
    scale = dtype.type(attrs["spatial_scale"])
    rx, ry = roi[0::2].astype(dtype) * scale, roi[1::2].astype(dtype) * scale
    m = _matrix(th, tw, rx, ry, dtype)
    ow, oh = np.meshgrid(np.arange(tw, dtype=dtype), np.arange(th, dtype=dtype))
    den = m[6] * ow + m[7] * oh + m[8]
    sx = (m[0] * ow + m[1] * oh + m[2]) / den
    sy = (m[3] * ow + m[4] * oh + m[5]) / den
    lo, hi_w, hi_h = dtype.type(-0.5), dtype.type(w - 0.5), dtype.type(h - 0.5)
    within = ~(_ge(lo, sx) | _ge(sx, hi_w) | _ge(lo, sy) | _ge(sy, hi_h))
    used = _in_quad(sx, sy, rx, ry) & within
    sx = np.where(_ge(dtype.type(0), sx), dtype.type(0), sx)
    sy = np.where(_ge(dtype.type(0), sy), dtype.type(0), sy)
    fx, fy = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
    edge_x, edge_y = _ge(fx, w - 1), _ge(fy, h - 1)
    fx, fy = np.where(edge_x, w - 1, fx), np.where(edge_y, h - 1, fy)
    sx, sy = np.where(edge_x, fx.astype(dtype), sx), np.where(edge_y, fy.astype(dtype), sy)
    cx, cy = np.where(edge_x, fx, fx + 1), np.where(edge_y, fy, fy + 1)
    wf, hf = sx - fx, sy - fy
    wc, hc = 1 - wf, 1 - hf
    corners = [(fy, fx, wc * hc), (cy, fx, wc * hf), (cy, cx, wf * hf), (fy, cx, wf * hc)]
    return m, used, corners


@roi_perspective_transform.kernel(dtypes=FLOATS, lod=True)
def roi_perspective_transform_kernel(attrs, x, rois):
    arr = x.numpy()
    images = _images(rois)
    boxes = rois.numpy()
    r, (_, c, h, w) = boxes.shape[0], arr.shape
    th, tw = attrs["transformed_height"], attrs["transformed_width"]
    out = np.zeros((r, c, th, tw), arr.dtype)
    mask = np.zeros((r, 1, th, tw), np.int32)
    matrices = np.zeros((r, 9), arr.dtype)
    for n in range(r):
        m, used, corners = _samples(attrs, arr.shape, boxes[n], arr.dtype)
        matrices[n] = m
        image = arr[images[n]]
        value = np.zeros((c, th, tw), arr.dtype)
        for rows, cols, weight in corners:
            value += weight * image[:, np.clip(rows, 0, h - 1), np.clip(cols, 0, w - 1)]
        out[n] = np.where(used, value, 0)
        mask[n, 0] = used
    return (LoDTensor.unchecked(out, rois.offsets), LoDTensor(mask), LoDTensor(matrices),
            LoDTensor(np.zeros(out.shape, np.int32)), LoDTensor(np.zeros_like(out)))


@roi_perspective_transform.grad_maker
def _(g):
    return [g.grad_op("roi_perspective_transform_grad",
                      inputs={"X": g.input("X"), "ROIs": g.input("ROIs"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


roi_perspective_transform_grad = register_op(
    "roi_perspective_transform_grad",
    inputs=[In("X", no_need_buffer=True), In("ROIs"),
            In("Out2InIdx", dispensable=True), In("Out2InWeights", dispensable=True),
            In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="dX = dOut added back with the forward's bilinear weights.",
)


@roi_perspective_transform_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@roi_perspective_transform_grad.kernel(dtypes=FLOATS, lod=True)
def roi_perspective_transform_grad_kernel(attrs, x, rois, idx, weights, dout):
    images = _images(rois)
    boxes = rois.numpy()
    d = dout.numpy()
    n_img, c, h, w = x.shape
    dx = np.zeros((n_img, c, h * w), d.dtype)
    for n in range(boxes.shape[0]):
        _, used, corners = _samples(attrs, x.shape, boxes[n], d.dtype)
        for rows, cols, weight in corners:
            flat = (np.clip(rows, 0, h - 1) * w + np.clip(cols, 0, w - 1))[used]
            np.add.at(dx[images[n]], (slice(None), flat), d[n][:, used] * weight[used])
    return LoDTensor(dx.reshape(x.shape))
