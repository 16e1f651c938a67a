"""Ops that move values between channels and space (+ grads, which invert the
permutation):

    pixel_shuffle     [N, C r^2, H, W] -> [N, C, H r, W r]
    pixel_unshuffle   [N, C, H, W] -> [N, C r^2, H / r, W / r] (the inverse of pixel_shuffle)
    space_to_depth    [N, C, H, W] -> [N, C b^2, H / b, W / b] (Paddle's order: darknet's
                      reorg, C a multiple of b^2)
    shuffle_channel   [N, C, H, W]: channels regrouped as transpose([g, C / g])
    channel_shuffle   channels [g, C/g] -> [C/g, g] (ShuffleNet; Paddle 2.x, no gradient)

pixel_unshuffle has no gradient op either.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, Attr, In, Out, register_op
from paddle_ir.ops.simple_op import register_simple

# -- space_to_depth / pixel_shuffle / shuffle_channel ----------------------------------------

def _infer_4d(fn):
    def infer(ctx):
        shape = ctx.input_shape("X")
        ctx.enforce(len(shape) == 4, lambda: f"X must be [N, C, H, W], got {list(shape)}")
        ctx.set_output("Out", fn(ctx, list(shape)), ctx.input_dtype("X"))

    return infer


def _s2d_shape(ctx, s):
    b = ctx.attr("blocksize")
    ctx.enforce(b >= 1, lambda: f"blocksize must be >= 1, got {b}")
    ctx.enforce(s[1] < 0 or s[1] % (b * b) == 0,
                lambda: f"C must be a multiple of blocksize^2 = {b * b} (Paddle's reorg moves "
                f"C / blocksize^2 channel groups), got X.shape={shape_str(s)}")
    for axis in (2, 3):
        ctx.enforce(s[axis] < 0 or s[axis] % b == 0,
                    lambda: f"H and W must be multiples of blocksize {b}, got {s}")
    return [s[0], s[1] * b * b if s[1] >= 0 else -1] + [d // b if d >= 0 else -1
                                                         for d in s[2:]]


# Paddle's space_to_depth is darknet's reorg: X's channel k = (dh b + dw) C/b^2 + c2 and
# pixel (j, i) go to (c2, j b + dh, i b + dw) of a [N, C/b^2, H b, W b] buffer, and that
# buffer, read in order, is Out [N, C b^2, H/b, W/b]. (Not TensorFlow's space_to_depth.)
def _s2d(attrs, x):
    b = attrs["blocksize"]
    n, c, h, w = x.shape
    t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return t.reshape(n, c * b * b, h // b, w // b)


def _s2d_grad(attrs, x, dout):
    b = attrs["blocksize"]
    n, c, h, w = x.shape
    t = dout.reshape(n, c // (b * b), h, b, w, b).transpose(0, 3, 5, 1, 2, 4)
    return t.reshape(x.shape).copy()


register_simple(
    "space_to_depth", [In("X", "[N, C, H, W]")], [Out("Out", "[N, C b^2, H / b, W / b]")],
    [Attr("blocksize", "long", 2, "b")], _infer_4d(_s2d_shape), _s2d, backward=_s2d_grad,
    wrt=["X"], doc=__doc__)


def _ps_shape(ctx, s):
    ctx.enforce_positive("upscale_factor")
    r = ctx.attr("upscale_factor")
    ctx.enforce(s[1] < 0 or s[1] % (r * r) == 0,
                lambda: f"C must be a multiple of upscale_factor^2 = {r * r}, got {s}")
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
                lambda: f"C must be a multiple of group {g}, got {s}")
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


# -- channel_shuffle, pixel_unshuffle --------------------------------------------------------

channel_shuffle = register_op(
    "channel_shuffle", inputs=[In("X", "[N, C, H, W] or NHWC")], outputs=[Out("Out")],
    attrs=[Attr("groups", "int", 1, "channel groups"),
           Attr("data_format", "string", "NCHW", "NCHW or NHWC")], doc=__doc__)


@channel_shuffle.infer_shape
def _(ctx):
    x, g = ctx.input_shape("X"), ctx.attr("groups")
    ctx.enforce(len(x) == 4, lambda: f"X must be 4-D, got {shape_str(x)}")
    c = x[3] if ctx.attr("data_format") == "NHWC" else x[1]
    ctx.enforce(g > 0 and (c < 0 or c % g == 0),
                lambda: f"the channels ({c}) must divide into groups = {g}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))


@channel_shuffle.kernel(dtypes=ALL_DTYPES)
def channel_shuffle_kernel(attrs, x):
    g, last = attrs["groups"], attrs["data_format"] == "NHWC"
    xc = x.transpose(0, 3, 1, 2) if last else x
    n, c, h, w = xc.shape
    out = xc.reshape(n, g, c // g, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)
    return np.ascontiguousarray(out.transpose(0, 2, 3, 1) if last else out)


pixel_unshuffle = register_op(
    "pixel_unshuffle", inputs=[In("X", "[N, C, H, W] or NHWC")], outputs=[Out("Out")],
    attrs=[Attr("downscale_factor", "int", 1, "r: H and W shrink r times"),
           Attr("data_format", "string", "NCHW", "NCHW or NHWC")], doc=__doc__)


@pixel_unshuffle.infer_shape
def _(ctx):
    x, r = ctx.input_shape("X"), ctx.attr("downscale_factor")
    ctx.enforce(len(x) == 4, lambda: f"X must be 4-D, got {shape_str(x)}")
    last = ctx.attr("data_format") == "NHWC"
    h, w = (x[1], x[2]) if last else (x[2], x[3])
    ctx.enforce(r > 0 and all(d < 0 or d % r == 0 for d in (h, w)),
                lambda: f"H and W ({h}, {w}) must be multiples of downscale_factor = {r}")
    c = x[3] if last else x[1]
    hw = [d // r if d >= 0 else -1 for d in (h, w)]
    cc = c * r * r if c >= 0 else -1
    ctx.set_output("Out", [x[0], *hw, cc] if last else [x[0], cc, *hw], ctx.input_dtype("X"))


@pixel_unshuffle.kernel(dtypes=ALL_DTYPES)
def pixel_unshuffle_kernel(attrs, x):
    r, last = attrs["downscale_factor"], attrs["data_format"] == "NHWC"
    xc = x.transpose(0, 3, 1, 2) if last else x
    n, c, h, w = xc.shape
    out = xc.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4)
    out = out.reshape(n, c * r * r, h // r, w // r)
    return np.ascontiguousarray(out.transpose(0, 2, 3, 1) if last else out)
