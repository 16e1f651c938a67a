"""deformable_conv (+ _v1, + their grads): convolution sampling its taps at learned offsets
(DCN v2, modulated, and v1).

Input [N, C, H, W], Offset [N, 2 G K, Ho, Wo] (G = deformable_groups, K = kh kw; for group
g and tap k = i kw + j, channel 2 (g K + k) holds the row offset and the next one the
column offset), Mask [N, G K, Ho, Wo] (v2 only), Filter [M, C / groups, kh, kw]. Tap (i, j)
of output (ho, wo) samples channel c (in deformable group g = c // (C / G)) at

    y = ho sh - ph + i dh + Offset_y,   x = wo sw - pw + j dw + Offset_x

bilinearly (0 outside (-1, H) x (-1, W); corner pixels outside the map count 0), times
Mask (v2). Output [N, M, Ho, Wo] is the grouped convolution of those samples with Filter;
Ho = (H + 2 ph - (dh (kh - 1) + 1)) / sh + 1 (likewise Wo).

Gradients: Input gets each sample's gradient back through its four bilinear weights;
Offset the derivative of the bilinear sample along y and x; Mask the unmasked sample; and
Filter the correlation of dOutput with the samples.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [Attr("strides", "ints", [1, 1], "the strides (h, w)"),
          Attr("paddings", "ints", [0, 0], "the paddings (h, w)"),
          Attr("dilations", "ints", [1, 1], "the dilations (h, w)"),
          Attr("groups", "int", 1, "convolution groups"),
          Attr("deformable_groups", "int", 1, "channel groups sharing one set of offsets"),
          Attr("im2col_step", "int", 64, "images per im2col batch (no effect here)")]


def _inputs(with_mask: bool):
    slots = [In("Input", "[N, C, H, W]"), In("Offset", "[N, 2 G kh kw, Ho, Wo]")]
    if with_mask:
        slots.append(In("Mask", "[N, G kh kw, Ho, Wo]"))
    return slots + [In("Filter", "[M, C / groups, kh, kw]")]


deformable_conv = register_op(
    "deformable_conv", inputs=_inputs(True), outputs=[Out("Output", "[N, M, Ho, Wo]")],
    attrs=_ATTRS, doc=__doc__)
deformable_conv_v1 = register_op(
    "deformable_conv_v1", inputs=_inputs(False), outputs=[Out("Output", "[N, M, Ho, Wo]")],
    attrs=_ATTRS, doc="deformable_conv without Mask (DCN v1): see deformable_conv.")


def _pairs(attrs):
    return [tuple(attrs[a]) for a in ("strides", "paddings", "dilations")]


def _infer(ctx, with_mask: bool):
    x, off, w = ctx.input_shape("Input"), ctx.input_shape("Offset"), ctx.input_shape("Filter")
    ctx.enforce(len(x) == 4, lambda: f"Input must be [N, C, H, W], got {shape_str(x)}")
    ctx.enforce(len(w) == 4, lambda: f"Filter must be [M, C / groups, kh, kw], got {shape_str(w)}")
    for a in ("strides", "paddings", "dilations"):
        ctx.enforce(len(ctx.attr(a)) == 2, lambda: f"{a} must hold 2 values (h, w), got "
                                           f"{list(ctx.attr(a))}")
    ctx.enforce_positive("strides", "dilations", "groups", "deformable_groups")
    (sh, sw), (ph, pw), (dh, dw) = _pairs(ctx.attrs)
    groups, dg = ctx.attr("groups"), ctx.attr("deformable_groups")
    c = x[1]
    ctx.enforce(c < 0 or (c % groups == 0 and c % dg == 0 and (w[1] < 0 or w[1] * groups == c)),
                lambda: f"Input's {c} channels must split into groups ({groups}) and "
                f"deformable_groups "
                f"({dg}), with Filter.shape[1] = C / groups, got Filter {shape_str(w)}")
    ctx.enforce(w[0] < 0 or w[0] % groups == 0,
                lambda: f"Filter's {w[0]} output channels must split into {groups} groups")
    k = w[2] * w[3] if w[2] >= 0 and w[3] >= 0 else -1

    def out_size(size, pad, dil, kernel, stride):
        if size < 0 or kernel < 0:
            return -1
        return (size + 2 * pad - (dil * (kernel - 1) + 1)) // stride + 1
    ho, wo = out_size(x[2], ph, dh, w[2], sh), out_size(x[3], pw, dw, w[3], sw)
    ctx.enforce(ho != 0 and wo != 0 and ho >= -1 and wo >= -1,
                lambda: f"Input {shape_str(x)} is too small for Filter {shape_str(w)}")
    want = [x[0], 2 * dg * k if k >= 0 else -1, ho, wo]
    ctx.enforce(len(off) == 4 and all(a < 0 or b < 0 or a == b
                                      for a, b in zip(off, want, strict=True)),
                lambda: f"Offset must be {shape_str(want)}, got {shape_str(off)}")
    if with_mask:
        mask = ctx.input_shape("Mask")
        want[1] = dg * k if k >= 0 else -1
        ctx.enforce(len(mask) == 4 and all(a < 0 or b < 0 or a == b
                                           for a, b in zip(mask, want, strict=True)),
                    lambda: f"Mask must be {shape_str(want)}, got {shape_str(mask)}")
    ctx.set_output("Output", [x[0], w[0], ho, wo], ctx.input_dtype("Input"))


@deformable_conv.infer_shape
def _(ctx):
    _infer(ctx, True)


@deformable_conv_v1.infer_shape
def _(ctx):
    _infer(ctx, False)


class _Samples:
    """The bilinear taps of every (image, channel, kernel tap, output position)."""

    def __init__(self, attrs, x, offset, kh, kw):
        n, c, h, w = x.shape
        (sh, sw), (ph, pw), (dh, dw) = _pairs(attrs)
        dg = attrs["deformable_groups"]
        ho, wo = offset.shape[2:]
        k = kh * kw
        off = offset.reshape(n, dg, k, 2, ho, wo)
        base_y = (np.arange(ho) * sh - ph)[None, :, None] + \
            (np.repeat(np.arange(kh), kw) * dh)[:, None, None]  # [K, Ho, 1]
        base_x = (np.arange(wo) * sw - pw)[None, None, :] + \
            (np.tile(np.arange(kw), kh) * dw)[:, None, None]  # [K, 1, Wo]
        y = base_y[None, None] + off[:, :, :, 0]  # [N, G, K, Ho, Wo]
        xx = base_x[None, None] + off[:, :, :, 1]
        inside = (y > -1) & (y < h) & (xx > -1) & (xx < w)
        y0, x0 = np.floor(y).astype(np.int64), np.floor(xx).astype(np.int64)
        ly, lx = (y - y0).astype(x.dtype), (xx - x0).astype(x.dtype)
        self.shape = (n, dg, k, ho, wo)
        self.corners = []
        for dy, wy in ((0, 1 - ly), (1, ly)):
            for dx_, wx in ((0, 1 - lx), (1, lx)):
                r, cc = y0 + dy, x0 + dx_
                ok = inside & (r >= 0) & (r <= h - 1) & (cc >= 0) & (cc <= w - 1)
                self.corners.append((np.clip(r, 0, h - 1), np.clip(cc, 0, w - 1), ok, dy, dx_,
                                     wy, wx))
        self.ly, self.lx = ly, lx
        self.group_of = np.arange(c) // (c // dg)  # deformable group of each channel

    def pixels(self, x, r, cc, ok):
        """x at each tap's corner, [N, C, K, Ho, Wo] (0 where the corner is off the map)."""
        n, c = x.shape[:2]
        g = self.group_of
        img = np.arange(n)[:, None, None, None, None]
        ch = np.arange(c)[None, :, None, None, None]
        rows, cols, valid = r[:, g], cc[:, g], ok[:, g]
        return np.where(valid, x[img, ch, rows, cols], 0)

    def values(self, x):
        """The bilinear samples, [N, C, K, Ho, Wo]; also the four corner values."""
        g = self.group_of
        vals, total = [], 0
        for r, cc, ok, _, _, wy, wx in self.corners:
            v = self.pixels(x, r, cc, ok)
            vals.append(v)
            total = total + v * (wy * wx)[:, g]
        return total, vals


def _conv(cols: np.ndarray, weight: np.ndarray, groups: int) -> np.ndarray:
    """Grouped product of samples [N, C, K, Ho, Wo] and Filter [M, C / g, kh, kw]."""
    n, c, k, ho, wo = cols.shape
    m = weight.shape[0]
    cols = cols.reshape(n, groups, (c // groups) * k, ho * wo)
    wg = weight.reshape(groups, m // groups, (c // groups) * k)
    out = np.einsum("gmq,ngqp->ngmp", wg, cols, optimize=True)
    return out.reshape(n, m, ho, wo)


def _forward(attrs, x, offset, mask, weight):
    kh, kw = weight.shape[2:]
    samples = _Samples(attrs, x, offset, kh, kw)
    cols, _ = samples.values(x)
    if mask is not None:
        n, dg, k, ho, wo = samples.shape
        cols = cols * mask.reshape(n, dg, k, ho, wo)[:, samples.group_of]
    return _conv(cols, weight, attrs["groups"]).astype(x.dtype)


@deformable_conv.kernel(dtypes=FLOATS)
def deformable_conv_kernel(attrs, x, offset, mask, weight):
    return _forward(attrs, x, offset, mask, weight)


@deformable_conv_v1.kernel(dtypes=FLOATS)
def deformable_conv_v1_kernel(attrs, x, offset, weight):
    return _forward(attrs, x, offset, None, weight)


def _backward(attrs, x, offset, mask, weight, dout):
    n, c, h, w = x.shape
    m, _, kh, kw = weight.shape
    groups = attrs["groups"]
    samples = _Samples(attrs, x, offset, kh, kw)
    _, dg, k, ho, wo = samples.shape
    g = samples.group_of
    vals, corners = samples.values(x)
    mask_c = None if mask is None else mask.reshape(n, dg, k, ho, wo)[:, g]
    cols = vals if mask_c is None else vals * mask_c
    # dFilter and dcols from the grouped product.
    d = dout.reshape(n, groups, m // groups, ho * wo)
    cg = cols.reshape(n, groups, (c // groups) * k, ho * wo)
    dweight = np.einsum("ngmp,ngqp->gmq", d, cg, optimize=True).reshape(weight.shape)
    wg = weight.reshape(groups, m // groups, (c // groups) * k)
    dcols = np.einsum("gmq,ngmp->ngqp", wg, d, optimize=True).reshape(n, c, k, ho, wo)
    def per_group(a):  # [N, C, K, Ho, Wo] summed over each deformable group's channels
        return a.reshape(n, dg, c // dg, k, ho, wo).sum(axis=2)

    dmask = None
    if mask_c is not None:
        dmask = per_group(dcols * vals)
        dvals = dcols * mask_c
    else:
        dvals = dcols
    # dInput: each sample's gradient into its four corners.
    dx = np.zeros(x.size, x.dtype)
    img = np.arange(n)[:, None, None, None, None]
    ch = np.arange(c)[None, :, None, None, None]
    for (r, cc, ok, _, _, wy, wx) in samples.corners:
        contrib = dvals * (wy * wx)[:, g]
        flat = ((img * c + ch) * h + r[:, g]) * w + cc[:, g]
        valid = np.broadcast_to(ok[:, g], contrib.shape)
        np.add.at(dx, np.broadcast_to(flat, contrib.shape)[valid], contrib[valid])
    # dOffset: the sample's slope along y and x, summed over the group's channels.
    v00, v01, v10, v11 = corners
    ly, lx = samples.ly[:, g], samples.lx[:, g]
    slope_y = (1 - lx) * (v10 - v00) + lx * (v11 - v01)
    slope_x = (1 - ly) * (v01 - v00) + ly * (v11 - v10)
    inside = np.any([ok for (_, _, ok, *_rest) in samples.corners], axis=0)[:, g]
    doff = np.stack([per_group(np.where(inside, dvals * slope_y, 0)),
                     per_group(np.where(inside, dvals * slope_x, 0))], axis=3)
    return (dx.reshape(x.shape), doff.reshape(offset.shape).astype(x.dtype),
            None if dmask is None else dmask.reshape(mask.shape).astype(x.dtype),
            dweight.astype(x.dtype))


def _grad_maker(grad_type: str, with_mask: bool):
    def make(g):
        inputs = {"Input": g.input("Input"), "Offset": g.input("Offset"),
                  "Filter": g.input("Filter"), "Output@GRAD": g.output_grad("Output")}
        outputs = {"Input@GRAD": g.input_grad("Input"), "Offset@GRAD": g.input_grad("Offset"),
                   "Filter@GRAD": g.input_grad("Filter")}
        if with_mask:
            inputs["Mask"] = g.input("Mask")
            outputs["Mask@GRAD"] = g.input_grad("Mask")
        return [g.grad_op(grad_type, inputs=inputs, outputs=outputs,
                          attrs={a.name: g.attr(a.name) for a in _ATTRS})]
    return make


deformable_conv.grad_maker(_grad_maker("deformable_conv_grad", True))
deformable_conv_v1.grad_maker(_grad_maker("deformable_conv_v1_grad", False))

_GRAD_INPUTS = [In("Input"), In("Offset"), In("Filter"), In("Output@GRAD")]
deformable_conv_grad = register_op(
    "deformable_conv_grad", inputs=_GRAD_INPUTS[:2] + [In("Mask")] + _GRAD_INPUTS[2:],
    outputs=[Out(s, dispensable=True)
             for s in ("Input@GRAD", "Offset@GRAD", "Mask@GRAD", "Filter@GRAD")],
    attrs=_ATTRS, key_inputs=["Input"], doc="The gradients of deformable_conv.")
deformable_conv_v1_grad = register_op(
    "deformable_conv_v1_grad", inputs=_GRAD_INPUTS,
    outputs=[Out(s, dispensable=True) for s in ("Input@GRAD", "Offset@GRAD", "Filter@GRAD")],
    attrs=_ATTRS, key_inputs=["Input"], doc="The gradients of deformable_conv_v1.")


def _grad_infer(ctx, slots):
    for slot in slots:
        ctx.set_output(f"{slot}@GRAD", ctx.input_shape(slot), ctx.input_dtype("Input"))


@deformable_conv_grad.infer_shape
def _(ctx):
    _grad_infer(ctx, ("Input", "Offset", "Mask", "Filter"))


@deformable_conv_v1_grad.infer_shape
def _(ctx):
    _grad_infer(ctx, ("Input", "Offset", "Filter"))


@deformable_conv_grad.kernel(dtypes=FLOATS)
def deformable_conv_grad_kernel(attrs, x, offset, mask, weight, dout):
    return _backward(attrs, x, offset, mask, weight, dout)


@deformable_conv_v1_grad.kernel(dtypes=FLOATS)
def deformable_conv_v1_grad_kernel(attrs, x, offset, weight, dout):
    dx, doff, _, dw = _backward(attrs, x, offset, None, weight, dout)
    return dx, doff, dw
