"""deformable_psroi_pooling (+ _grad): position-sensitive RoI pooling whose bins move by
learned offsets (Deformable R-FCN; Paddle's deformable_psroi_pooling_op.cc).

Per RoI n (Input image from ROIs' LoD; corners rounded half away from zero, scaled):

    start = round(x1) * s - 0.5, end = (round(x2) + 1) * s - 0.5 (same for y);
    size = max(end - start, 0.1); bin = size / pooled; sub = bin / sample_per_part
    for output channel k, bin (ph, pw): part = floor(p / pooled * part_size) per axis,
    class = k // (output_dim / num_classes) with num_classes = Trans.shape[1] / 2
    (1 with no_trans); offset (tx, ty) = Trans[n, 2 class (+1), part_h, part_w] * trans_std
    bin start = p * bin + start + t * size, per axis; the input channel read is
    (k * group_h + gh) * group_w + gw, g = clip(floor(p * group / pooled), 0, group - 1)
    Output = the mean over the sample_per_part^2 points start + i * sub that lie within
    (-0.5, size - 0.5) of the map (clamped to [0, size - 1], bilinearly sampled), 0 when
    none do; TopCount = how many did

Gradients: Input's, each sampled point's bilinear weights times dOutput / TopCount; and
Trans's, the derivative of the sampled values by the bin offset (times trans_std and
the RoI size). Paddle's CPU grad kernel indexes Trans's width part with part_size's
height (part_w = floor(pw / pooled_width * part_height)), so its Trans gradient differs
from the derivative when part_size is not square; paddle-ir gives the derivative.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [Attr("no_trans", "bool", False, "ignore Trans (plain PS RoI pooling)"),
          Attr("spatial_scale", "float", 1.0, "scales the RoI corners to Input's grid"),
          Attr("output_dim", "int", 1, "output channels"),
          Attr("group_size", "ints", [1, 1], "the position-sensitive groups (h, w)"),
          Attr("pooled_height", "int", 1, "bins down"),
          Attr("pooled_width", "int", 1, "bins across"),
          Attr("part_size", "ints", [1, 1], "Trans's offset grid (h, w)"),
          Attr("sample_per_part", "int", 1, "sample points per bin and axis"),
          Attr("trans_std", "float", 0.1, "scales Trans's offsets")]

deformable_psroi_pooling = register_op(
    "deformable_psroi_pooling",
    inputs=[In("Input", "[N, C, H, W], C = output_dim * group_h * group_w"),
            In("ROIs", "[R, 4] (x1, y1, x2, y2), LoD: RoIs per image"),
            In("Trans", "[R, 2 * num_classes, part_h, part_w] bin offsets")],
    outputs=[Out("TopCount", "[R, output_dim, ph, pw] the points sampled per bin"),
             Out("Output", "[R, output_dim, ph, pw]")],
    attrs=_ATTRS,
    key_inputs=["Input"],
    doc=__doc__,
)


@deformable_psroi_pooling.infer_shape
def _(ctx):
    x, rois, trans = (ctx.input_shape(s) for s in ("Input", "ROIs", "Trans"))
    ctx.enforce(len(x) == 4, lambda: f"Input must be NCHW, got {shape_str(x)}")
    ctx.enforce(len(rois) == 2 and rois[1] in (4, -1),
                lambda: f"ROIs must be [num_rois, 4] (x1, y1, x2, y2), got {shape_str(rois)}")
    ctx.enforce(len(trans) == 4, lambda: f"Trans must be [num_rois, 2 * num_classes, part_h, "
                                 f"part_w], got {shape_str(trans)}")
    group, part = list(ctx.attr("group_size")), list(ctx.attr("part_size"))
    ctx.enforce(len(group) == 2 and min(group) > 0 and len(part) == 2 and min(part) > 0, lambda:
                f"group_size and part_size must be two positive ints, got {group} and {part}")
    dim, ph, pw = (ctx.attr(a) for a in ("output_dim", "pooled_height", "pooled_width"))
    ctx.enforce(dim > 0 and ph > 0 and pw > 0 and ctx.attr("sample_per_part") > 0,
                "output_dim, pooled_height, pooled_width and sample_per_part must be > 0")
    ctx.enforce(x[1] < 0 or x[1] == dim * group[0] * group[1],
                lambda: f"Input's channels ({x[1]}) must be output_dim * group_h * group_w = "
                f"{dim * group[0] * group[1]}")
    if not ctx.attr("no_trans"):
        ctx.enforce(trans[1] < 0 or (trans[1] >= 2 and trans[1] % 2 == 0
                                     and dim // (trans[1] // 2) >= 1),
                    lambda: f"Trans's dim 1 ({trans[1]}) must be 2 * num_classes with num_classes "
                    f"<= output_dim ({dim})")
        ctx.enforce(all(t < 0 for t in trans[2:]) or list(trans[2:]) == part,
                    lambda: f"Trans's last dims {list(trans[2:])} must be part_size {part}")
    out = [rois[0], dim, ph, pw]
    ctx.set_output("Output", out, ctx.input_dtype("Input"))
    ctx.set_output("TopCount", out, ctx.input_dtype("Input"))


def _round(v):
    """C's round: halves away from zero."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _images(rois: LoDTensor, batch: int) -> np.ndarray:
    if not rois.offsets:
        raise KernelError("deformable_psroi_pooling: ROIs must carry a LoD (the RoIs of "
                          "each image)")
    offsets = np.asarray(rois.offsets[-1])
    if len(offsets) - 1 != batch:
        raise KernelError(f"deformable_psroi_pooling: ROIs' LoD names {len(offsets) - 1} "
                          f"images, Input holds {batch}")
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


class _Bins:
    """Every sample point of one RoI: [D, ph, pw, s, s] coordinates, validity, the input
    channel read, and where its offset sits in Trans."""

    def __init__(self, attrs, roi, trans, shape, dtype):
        t = dtype.type
        dim, ph, pw, spp = (attrs[a] for a in ("output_dim", "pooled_height",
                                               "pooled_width", "sample_per_part"))
        (gh, gw), (part_h, part_w) = attrs["group_size"], attrs["part_size"]
        _, _, h, w = shape
        scale = t(attrs["spatial_scale"])
        x1, y1, x2, y2 = (t(v) for v in _round(roi.astype(dtype)))
        start_w, start_h = x1 * scale - t(0.5), y1 * scale - t(0.5)
        self.size_w = max((x2 + t(1)) * scale - t(0.5) - start_w, t(0.1))
        self.size_h = max((y2 + t(1)) * scale - t(0.5) - start_h, t(0.1))
        bin_w, bin_h = self.size_w / t(pw), self.size_h / t(ph)
        p_h = np.arange(ph, dtype=dtype)[:, None]
        p_w = np.arange(pw, dtype=dtype)[None, :]
        self.part = (np.floor(p_h / t(ph) * t(part_h)).astype(np.int64),
                     np.floor(p_w / t(pw) * t(part_w)).astype(np.int64))
        classes = 1 if attrs["no_trans"] else trans.shape[0] // 2
        self.cls = np.arange(dim) // (dim // classes)
        if attrs["no_trans"]:
            tx = ty = np.zeros((dim, ph, pw), dtype)
        else:
            std = t(attrs["trans_std"])
            at = (self.cls[:, None, None], self.part[0], self.part[1])
            tx = trans[2 * at[0], at[1], at[2]] * std
            ty = trans[2 * at[0] + 1, at[1], at[2]] * std
        ws = p_w * bin_w + start_w + tx * self.size_w  # [D, ph, pw]
        hs = p_h * bin_h + start_h + ty * self.size_h
        steps = np.arange(spp, dtype=dtype)
        self.w = ws[..., None, None] + steps[None, :] * (bin_w / t(spp))
        self.h = hs[..., None, None] + steps[:, None] * (bin_h / t(spp))
        self.w, self.h = (np.array(a) for a in np.broadcast_arrays(self.w, self.h))
        self.valid = ~((self.w < -0.5) | (self.w > w - 0.5) | (self.h < -0.5)
                       | (self.h > h - 0.5))
        self.w = np.clip(self.w, 0, w - 1).astype(dtype)
        self.h = np.clip(self.h, 0, h - 1).astype(dtype)
        g_h = np.clip(np.floor(p_h * gh / ph).astype(np.int64), 0, gh - 1)
        g_w = np.clip(np.floor(p_w * gw / pw).astype(np.int64), 0, gw - 1)
        self.channel = ((np.arange(dim)[:, None, None] * gh + g_h) * gw + g_w)[..., None, None]
        self.x0, self.y0 = np.floor(self.w).astype(np.int64), np.floor(self.h).astype(np.int64)
        self.x1, self.y1 = np.ceil(self.w).astype(np.int64), np.ceil(self.h).astype(np.int64)
        self.dx, self.dy = self.w - self.x0, self.h - self.y0
        self.count = self.valid.sum(axis=(-2, -1)).astype(dtype)

    def corners(self):
        """(row, column, bilinear weight) of the four neighbours of every point."""
        dx, dy = self.dx, self.dy
        return [(self.y0, self.x0, (1 - dx) * (1 - dy)), (self.y1, self.x0, (1 - dx) * dy),
                (self.y0, self.x1, dx * (1 - dy)), (self.y1, self.x1, dx * dy)]


def _trans_array(attrs, trans, r):
    return None if attrs["no_trans"] else trans.numpy() if isinstance(trans, LoDTensor) \
        else np.asarray(trans)


@deformable_psroi_pooling.kernel(dtypes=FLOATS, lod=True)
def deformable_psroi_pooling_kernel(attrs, x, rois, trans):
    arr = x.numpy()
    boxes = rois.numpy()
    images = _images(rois, arr.shape[0])
    offsets = _trans_array(attrs, trans, boxes.shape[0])
    shape = (boxes.shape[0], attrs["output_dim"], attrs["pooled_height"], attrs["pooled_width"])
    out, count = np.zeros(shape, arr.dtype), np.zeros(shape, arr.dtype)
    for n in range(boxes.shape[0]):
        b = _Bins(attrs, boxes[n], None if offsets is None else offsets[n], arr.shape,
                  arr.dtype)
        total = np.zeros(b.w.shape, arr.dtype)
        for rows, cols, weight in b.corners():
            total += weight * arr[images[n]][b.channel, rows, cols]
        summed = np.where(b.valid, total, 0).sum(axis=(-2, -1))
        out[n] = np.where(b.count > 0, summed / np.maximum(b.count, 1), 0)
        count[n] = b.count
    return LoDTensor(count), LoDTensor(out)


@deformable_psroi_pooling.grad_maker
def _(g):
    return [g.grad_op("deformable_psroi_pooling_grad",
                      inputs={"Input": g.input("Input"), "ROIs": g.input("ROIs"),
                              "Trans": g.input("Trans"), "TopCount": g.output("TopCount"),
                              "Output@GRAD": g.output_grad("Output")},
                      outputs={"Input@GRAD": g.input_grad("Input"),
                               "Trans@GRAD": g.input_grad("Trans")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


deformable_psroi_pooling_grad = register_op(
    "deformable_psroi_pooling_grad",
    inputs=[In("Input"), In("ROIs"), In("Trans"), In("TopCount"), In("Output@GRAD")],
    outputs=[Out("Input@GRAD", dispensable=True), Out("Trans@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Output@GRAD"],
    doc="dInput and dTrans of deformable_psroi_pooling (its module's doc).",
)


@deformable_psroi_pooling_grad.infer_shape
def _(ctx):
    for slot in ("Input", "Trans"):
        if ctx.has_output(slot + "@GRAD"):
            ctx.set_output(slot + "@GRAD", ctx.input_shape(slot), ctx.input_dtype(slot))


@deformable_psroi_pooling_grad.kernel(dtypes=FLOATS, lod=True)
def deformable_psroi_pooling_grad_kernel(attrs, x, rois, trans, top_count, dout):
    arr, boxes, d = x.numpy(), rois.numpy(), dout.numpy()
    images = _images(rois, arr.shape[0])
    offsets = _trans_array(attrs, trans, boxes.shape[0])
    dx = np.zeros_like(arr)
    dtrans = None if offsets is None else np.zeros_like(offsets)
    std = arr.dtype.type(attrs["trans_std"])
    for n in range(boxes.shape[0]):
        b = _Bins(attrs, boxes[n], None if offsets is None else offsets[n], arr.shape,
                  arr.dtype)
        share = np.where(b.count > 0, d[n] / np.maximum(b.count, 1), 0)[..., None, None]
        share = np.where(b.valid, share, 0)
        channel = np.broadcast_to(b.channel, b.w.shape)
        for rows, cols, weight in b.corners():
            np.add.at(dx[images[n]], (channel, rows, cols), weight * share)
        if dtrans is None:
            continue
        image = arr[images[n]]
        u00, u01 = image[channel, b.y0, b.x0], image[channel, b.y1, b.x0]
        u10, u11 = image[channel, b.y0, b.x1], image[channel, b.y1, b.x1]
        along_x = u11 * b.dy + u10 * (1 - b.dy) - u01 * b.dy - u00 * (1 - b.dy)
        along_y = u11 * b.dx + u01 * (1 - b.dx) - u10 * b.dx - u00 * (1 - b.dx)
        gx = (along_x * share).sum(axis=(-2, -1)) * std * b.size_w  # [D, ph, pw]
        gy = (along_y * share).sum(axis=(-2, -1)) * std * b.size_h
        cls = np.broadcast_to(b.cls[:, None, None], gx.shape)
        part_h = np.broadcast_to(b.part[0], gx.shape)
        part_w = np.broadcast_to(b.part[1], gx.shape)
        np.add.at(dtrans[n], (2 * cls, part_h, part_w), gx)
        np.add.at(dtrans[n], (2 * cls + 1, part_h, part_w), gy)
    return LoDTensor(dx), None if dtrans is None else LoDTensor(dtrans)
