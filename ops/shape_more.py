"""Padding, cropping, slicing and rearranging ops (+ grads):

    pad               Out = X padded by `paddings` ([before_0, after_0, ...]) with pad_value
    pad_constant_like Out = Y padded at the end of each dim to X's shape with pad_value
    pad2d             NCHW/NHWC X padded by [top, bottom, left, right]; mode constant,
                      reflect or edge
    crop / crop_tensor  Out = X[offsets : offsets + shape] (shape -1 keeps the rest)
    strided_slice     Out = X[starts:ends:strides] on `axes` (Python slicing rules)
    space_to_depth    [N, C, H, W] -> [N, C b^2, H / b, W / b] (Paddle's channel order)
    pixel_shuffle     [N, C r^2, H, W] -> [N, C, H r, W r]
    shuffle_channel   [N, C, H, W]: channels regrouped as transpose([g, C / g])
    expand_as         Out = X tiled to target_tensor's shape; dX sums the tiles

Gradients route dOut back through the same index map (pads slice, crops pad,
permutations invert).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import dims_known
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out
from paddle_ir.ops.simple_op import register_simple

# -- pad -------------------------------------------------------------------------------------

def _pairs(paddings, rank):
    return [(paddings[2 * i], paddings[2 * i + 1]) for i in range(rank)]


def _infer_pad(ctx):
    shape, pads = ctx.input_shape("X"), ctx.attr("paddings")
    ctx.enforce(len(pads) == 2 * len(shape),
                f"paddings must hold 2 * rank = {2 * len(shape)} numbers, got {len(pads)}")
    ctx.enforce(min(pads, default=0) >= 0, f"paddings must be >= 0, got {list(pads)}")
    out = [d + a + b if d >= 0 else -1 for d, (a, b) in zip(shape, _pairs(pads, len(shape)),
                                                         strict=True)]
    ctx.set_output("Out", out, ctx.input_dtype("X"))


def _pad(attrs, x):
    return np.pad(x, _pairs(attrs["paddings"], x.ndim), constant_values=attrs["pad_value"])


def _pad_grad(attrs, x, dout):
    index = tuple(slice(a, a + d) for (a, _), d in zip(_pairs(attrs["paddings"], x.ndim),
                                                       x.shape, strict=True))
    return dout[index].copy()


register_simple(
    "pad", [In("X")], [Out("Out", "X padded")],
    [Attr("paddings", "ints", [], "[before_0, after_0, before_1, after_1, ...]"),
     Attr("pad_value", "float", 0.0, "the value of the new elements")],
    _infer_pad, _pad, backward=_pad_grad, wrt=["X"], doc=__doc__)


def _infer_pad_like(ctx):
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    ctx.enforce(len(x) == len(y) and all(not dims_known(a, b) or a >= b
                                         for a, b in zip(x, y, strict=True)),
                f"Y must have X's rank and no dim larger than X's, got X {list(x)}, Y {list(y)}")
    ctx.set_output("Out", x, ctx.input_dtype("Y"))


def _pad_like(attrs, x, y):
    return np.pad(y, [(0, a - b) for a, b in zip(x.shape, y.shape, strict=True)],
                  constant_values=attrs["pad_value"])


def _pad_like_grad(attrs, x, y, dout):
    return dout[tuple(slice(0, d) for d in y.shape)].copy()


register_simple(
    "pad_constant_like", [In("X", "gives the shape", ), In("Y", "the tensor padded")],
    [Out("Out", "X's shape")], [Attr("pad_value", "float", 0.0, "the value of new elements")],
    _infer_pad_like, _pad_like, backward=_pad_like_grad, wrt=["Y"], doc=__doc__)


# -- pad2d -----------------------------------------------------------------------------------

_PAD2D_MODES = {"constant": "constant", "reflect": "reflect", "edge": "edge"}


def _hw_axes(fmt: str) -> tuple[int, int]:
    return (2, 3) if fmt == "NCHW" else (1, 2)


def _infer_pad2d(ctx):
    shape, pads = list(ctx.input_shape("X")), ctx.attr("paddings")
    ctx.enforce(len(shape) == 4, f"X must be 4-D, got shape {shape}")
    ctx.enforce(len(pads) == 4, f"paddings must be [top, bottom, left, right], got {pads}")
    ctx.enforce(ctx.attr("mode") in _PAD2D_MODES,
                f"mode must be constant, reflect or edge, got {ctx.attr('mode')!r}")
    fmt = ctx.attr("data_format")
    ctx.enforce(fmt in ("NCHW", "NHWC"), f"data_format must be NCHW or NHWC, got {fmt!r}")
    h, w = _hw_axes(fmt)
    for axis, extra in ((h, pads[0] + pads[1]), (w, pads[2] + pads[3])):
        shape[axis] = shape[axis] + extra if shape[axis] >= 0 else -1
    ctx.set_output("Out", shape, ctx.input_dtype("X"))


def _pad2d_width(attrs, ndim=4):
    p = attrs["paddings"]
    h, w = _hw_axes(attrs["data_format"])
    width = [(0, 0)] * ndim
    width[h], width[w] = (p[0], p[1]), (p[2], p[3])
    return width


def _pad2d(attrs, x):
    mode = attrs["mode"]
    if mode == "constant":
        return np.pad(x, _pad2d_width(attrs), constant_values=attrs["pad_value"])
    return np.pad(x, _pad2d_width(attrs), mode=_PAD2D_MODES[mode])


def _pad2d_grad(attrs, x, dout):
    """The adjoint of the padding map: each output element's dOut goes back to the input
    element it copies (reflect and edge copy some several times)."""
    index = np.arange(x.size).reshape(x.shape)
    source = np.pad(index, _pad2d_width(attrs), mode="constant", constant_values=-1) \
        if attrs["mode"] == "constant" else np.pad(index, _pad2d_width(attrs),
                                                   mode=_PAD2D_MODES[attrs["mode"]])
    keep = source >= 0
    dx = np.bincount(source[keep], weights=dout[keep], minlength=x.size)
    return dx.reshape(x.shape).astype(dout.dtype)


register_simple(
    "pad2d", [In("X", "4-D")], [Out("Out", "X padded in H and W")],
    [Attr("paddings", "ints", [0, 0, 0, 0], "[top, bottom, left, right]"),
     Attr("mode", "string", "constant", "constant, reflect or edge"),
     Attr("pad_value", "float", 0.0, "for mode constant"),
     Attr("data_format", "string", "NCHW", "NCHW or NHWC")],
    _infer_pad2d, _pad2d, backward=_pad2d_grad, wrt=["X"], doc=__doc__)


# -- crop / crop_tensor ----------------------------------------------------------------------

def _crop_box(ctx, x_shape):
    offsets, shape = list(ctx.attr("offsets")), list(ctx.attr("shape"))
    rank = len(x_shape)
    if ctx.has_input("Y"):
        shape = list(ctx.input_shape("Y"))
    offsets = offsets or [0] * rank
    ctx.enforce(len(offsets) == rank and len(shape) == rank,
                f"offsets and shape must have X's rank {rank}, got offsets {offsets} and "
                f"shape {shape}")
    out = []
    for d, o, s in zip(x_shape, offsets, shape, strict=True):
        ctx.enforce(o >= 0 and s >= -1, f"offsets must be >= 0 and shape's dims >= 0 (or -1: "
                                        f"to the end), got offsets {offsets} and shape {shape}")
        size = (d - o if d >= 0 else -1) if s == -1 else s
        ctx.enforce(not dims_known(d, size) or o + size <= d,
                    f"the crop [offset {o}, size {size}] exceeds X's dim {d}")
        out.append(size)
    return out


def _infer_crop(ctx):
    ctx.set_output("Out", _crop_box(ctx, ctx.input_shape("X")), ctx.input_dtype("X"))


def _crop_slices(attrs, x, y):
    shape = list(y.shape) if y is not None else list(attrs["shape"])
    offsets = list(attrs["offsets"]) or [0] * x.ndim
    return tuple(slice(o, d if s == -1 else o + s)
                 for o, s, d in zip(offsets, shape, x.shape, strict=True))


def _crop_grad(attrs, x, y, dout):
    dx = np.zeros(x.shape, dtype=dout.dtype)
    dx[_crop_slices(attrs, x, y)] = dout
    return dx


for _name in ("crop", "crop_tensor"):
    register_simple(
        _name, [In("X"), In("Y", "its shape is the crop's (optional)", dispensable=True)],
        [Out("Out", "the cropped box")],
        [Attr("offsets", "ints", [], "where the box starts, per dim (default 0s)"),
         Attr("shape", "ints", [], "the box's size per dim; -1: to the end")],
        _infer_crop, lambda attrs, x, y: x[_crop_slices(attrs, x, y)].copy(),
        backward=_crop_grad, wrt=["X"], dtypes=FLOATS, doc=__doc__)


# -- strided_slice ---------------------------------------------------------------------------

def _slices(attrs, shape):
    index = [slice(None)] * len(shape)
    for axis, start, end, stride in zip(attrs["axes"], attrs["starts"], attrs["ends"],
                                        attrs["strides"], strict=True):
        index[axis] = slice(start, end, stride)
    return tuple(index)


def _infer_strided(ctx):
    shape = list(ctx.input_shape("Input"))
    lists = [ctx.attr(k) for k in ("axes", "starts", "ends", "strides")]
    ctx.enforce(len({len(v) for v in lists}) == 1,
                f"axes, starts, ends and strides must have one length, got "
                f"{[len(v) for v in lists]}")
    ctx.enforce(all(s != 0 for s in ctx.attr("strides")), "strides must not be 0")
    for axis, start, end, stride in zip(*lists, strict=True):
        ctx.enforce(0 <= axis < len(shape), f"axis {axis} is out of range for rank "
                    f"{len(shape)}")
        if shape[axis] >= 0:
            shape[axis] = len(range(*slice(start, end, stride).indices(shape[axis])))
    ctx.set_output("Out", shape, ctx.input_dtype("Input"))


def _strided_grad(attrs, x, dout):
    dx = np.zeros(x.shape, dtype=dout.dtype)
    dx[_slices(attrs, x.shape)] = dout
    return dx


register_simple(
    "strided_slice", [In("Input")], [Out("Out", "the strided slice")],
    [Attr("axes", "ints", [], "the sliced axes"), Attr("starts", "ints", [], "per axis"),
     Attr("ends", "ints", [], "per axis, exclusive"), Attr("strides", "ints", [], "per axis")],
    _infer_strided,
    lambda attrs, x: x[_slices(attrs, x.shape)].copy(),
    backward=_strided_grad, wrt=["Input"], dtypes=ALL_DTYPES, doc=__doc__)


# -- space_to_depth / pixel_shuffle / shuffle_channel ----------------------------------------

def _infer_4d(fn):
    def infer(ctx):
        shape = ctx.input_shape("X")
        ctx.enforce(len(shape) == 4, f"X must be [N, C, H, W], got {list(shape)}")
        ctx.set_output("Out", fn(ctx, list(shape)), ctx.input_dtype("X"))

    return infer


def _s2d_shape(ctx, s):
    b = ctx.attr("blocksize")
    ctx.enforce(b >= 1, f"blocksize must be >= 1, got {b}")
    for axis in (2, 3):
        ctx.enforce(s[axis] < 0 or s[axis] % b == 0,
                    f"H and W must be multiples of blocksize {b}, got {s}")
    return [s[0], s[1] * b * b if s[1] >= 0 else -1] + [d // b if d >= 0 else -1
                                                         for d in s[2:]]


def _s2d(attrs, x):
    b = attrs["blocksize"]
    n, c, h, w = x.shape
    t = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b)


def _s2d_grad(attrs, x, dout):
    b = attrs["blocksize"]
    n, c, h, w = x.shape
    t = dout.reshape(n, b, b, c, h // b, w // b).transpose(0, 3, 4, 1, 5, 2)
    return t.reshape(x.shape).copy()


register_simple(
    "space_to_depth", [In("X", "[N, C, H, W]")], [Out("Out", "[N, C b^2, H / b, W / b]")],
    [Attr("blocksize", "long", 2, "b")], _infer_4d(_s2d_shape), _s2d, backward=_s2d_grad,
    wrt=["X"], doc=__doc__)


def _ps_shape(ctx, s):
    ctx.enforce_positive("upscale_factor")
    r = ctx.attr("upscale_factor")
    ctx.enforce(s[1] < 0 or s[1] % (r * r) == 0,
                f"C must be a multiple of upscale_factor^2 = {r * r}, got {s}")
    return [s[0], s[1] // (r * r) if s[1] >= 0 else -1] + [d * r if d >= 0 else -1
                                                            for d in s[2:]]


def _ps(attrs, x):
    r = attrs["upscale_factor"]
    n, c, h, w = x.shape
    oc = c // (r * r)
    return x.reshape(n, oc, r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, oc, h * r, w * r)


def _ps_grad(attrs, x, dout):
    r = attrs["upscale_factor"]
    n, c, h, w = x.shape
    oc = c // (r * r)
    return dout.reshape(n, oc, h, r, w, r).transpose(0, 1, 3, 5, 2, 4).reshape(x.shape).copy()


register_simple(
    "pixel_shuffle", [In("X", "[N, C r^2, H, W]")], [Out("Out", "[N, C, H r, W r]")],
    [Attr("upscale_factor", "int", 1, "r")], _infer_4d(_ps_shape), _ps, backward=_ps_grad,
    wrt=["X"], doc=__doc__)


def _sc_shape(ctx, s):
    g = ctx.attr("group")
    ctx.enforce(g >= 1 and (s[1] < 0 or s[1] % g == 0),
                f"C must be a multiple of group {g}, got {s}")
    return s


def _sc(attrs, x, group=None):
    g = group or attrs["group"]
    n, c, h, w = x.shape
    return x.reshape(n, g, c // g, h, w).transpose(0, 2, 1, 3, 4).reshape(x.shape)


register_simple(
    "shuffle_channel", [In("X", "[N, C, H, W]")], [Out("Out", "X's shape")],
    [Attr("group", "int", 1, "the number of channel groups")], _infer_4d(_sc_shape), _sc,
    backward=lambda attrs, x, dout: _sc(attrs, dout, x.shape[1] // attrs["group"]).copy(),
    wrt=["X"], doc=__doc__)


# -- expand_as -------------------------------------------------------------------------------

def _infer_expand_as(ctx):
    x, t = ctx.input_shape("X"), ctx.input_shape("target_tensor")
    ctx.enforce(len(x) == len(t), f"X and target_tensor must have one rank, got {list(x)} "
                f"and {list(t)}")
    ctx.enforce(all(not dims_known(a, b) or (a > 0 and b % a == 0) for a, b in zip(x, t,
                                                                             strict=True)),
                f"each target dim must be a multiple of X's, got X {list(x)}, target {list(t)}")
    ctx.set_output("Out", t, ctx.input_dtype("X"))


def _expand_as_grad(attrs, x, target, dout):
    reps = [b // a for a, b in zip(x.shape, dout.shape, strict=True)]
    split = dout.reshape([v for r, d in zip(reps, x.shape, strict=True) for v in (r, d)])
    return split.sum(axis=tuple(range(0, split.ndim, 2))).astype(dout.dtype)


register_simple(
    "expand_as", [In("X"), In("target_tensor", "gives the shape")],
    [Out("Out", "target_tensor's shape")], [], _infer_expand_as,
    lambda attrs, x, t: np.tile(x, [b // a for a, b in zip(x.shape, t.shape, strict=True)]),
    backward=_expand_as_grad, wrt=["X"], dtypes=FLOATS, doc=__doc__)



# -- reverse ---------------------------------------------------------------------------------

def _infer_reverse(ctx):
    rank = len(ctx.input_shape("X"))
    axes = ctx.attr("axis")
    ctx.enforce(len(axes) > 0 and all(-rank <= a < rank for a in axes),
                f"axis must list axes in [-{rank}, {rank}), got {list(axes)}")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))


def _reverse(attrs, x):
    return np.flip(x, tuple(attrs["axis"])).copy()


register_simple(
    "reverse", [In("X")], [Out("Out", "X flipped along axis")],
    [Attr("axis", "ints", [], "the axes to flip")], _infer_reverse, _reverse,
    backward=lambda attrs, x, dout: _reverse(attrs, dout), wrt=["X"], dtypes=ALL_DTYPES,
    doc="Out = X with the order of its elements reversed along each of `axis`.")
