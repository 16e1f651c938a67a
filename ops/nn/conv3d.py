"""conv3d, conv3d_transpose and pool3d (+ grads) over NCDHW volumes (NDHWC with
data_format="NDHWC"), by patch gathering:

    conv3d            Out[n, m] = sum_{c, k} W[m, c, k] X_pad[n, c, o * stride + k * dilation]
                      (groups split C and M evenly); out = (in + p0 + p1 - dil (k - 1) - 1)
                      // stride + 1 per dim
    conv3d_transpose  the adjoint of conv3d: every input voxel adds W times itself into the
                      output window it maps to; out = (in - 1) stride - p0 - p1 + dil (k - 1)
                      + 1 (+ output_padding), or output_size
    pool3d            max or average over ksize windows (global_pooling: the whole volume;
                      adaptive: ksize is the output size, cell i pooling [floor(i D / od),
                      ceil((i + 1) D / od)) per dim); average divides by the window's voxels
                      inside the volume when exclusive, else by the window's size cut at
                      p0 past the volume's far end (Paddle 2.x/3.x; see _pool_counts);
                      out = (in + p0 + p1 - k (+ stride - 1 with ceil_mode)) // stride + 1

`paddings` holds one value per spatial dim (both sides) or two, [front, back, top,
bottom, left, right]; `padding_algorithm` SAME pads so that out = ceil(in / stride)
(dilations then count as 1), VALID pads nothing, EXPLICIT uses `paddings` (Paddle's
UpdatePaddingAndDilation, ops/nn/conv_math.py). A pooling window starts p0 before the
volume; the after-paddings and ceil_mode only decide how many windows there are.
NDHWC data (data_format NDHWC, or NHWC as Paddle's conv3d_transpose spells it) is
transposed to NCDHW and back; Filter is [M, C / groups, kd, kh, kw]
either way, as in Paddle.

Patches are gathered with one fancy index ([N, C, K, L] for K kernel offsets and L output
positions); gradients scatter them back with np.add.at. The patch stack is K times
the volume it comes from, so it and its index are checked against the memory budget
before they are made (core/limits.py check_temporary).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_temporary
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.nn import conv_math as cm
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple

# Paddle's 3-D ops read "NHWC" as channels-last too (conv3d_transpose's Python layer
# writes NHWC/NCHW for NDHWC/NCDHW), and AnyLayout as channels-first.
_LAYOUTS = ("NCDHW", "NDHWC", "NCHW", "NHWC", "AnyLayout")
_ALGORITHMS = ("EXPLICIT", "SAME", "VALID")


def _three(v) -> list[int]:
    v = list(v)
    return v * 3 if len(v) == 1 else v


def _channels_last(attrs) -> bool:
    return attrs["data_format"] in ("NDHWC", "NHWC")


def _to_ncdhw(a, attrs):
    return np.moveaxis(a, -1, 1) if _channels_last(attrs) else a


def _from_ncdhw(a, attrs):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1)) if _channels_last(attrs) else a


def _spatial_of(shape, attrs) -> list[int]:
    return list(shape[1:4]) if _channels_last(attrs) else list(shape[2:])


def _layout_shape(n, channels, spatial, attrs) -> list[int]:
    return [n, *spatial, channels] if _channels_last(attrs) else [n, channels, *spatial]


def _resolve(attrs, spatial, ksize, dilations, fail):
    """((before, after) per dim, dilations) after padding_algorithm, or fail(message)."""
    pads = list(attrs["paddings"])
    resolved = cm.resolve_padding(spatial, ksize, _three(attrs["strides"]),
                                  pads * 3 if len(pads) == 1 else pads,
                                  attrs["padding_algorithm"], dilations)
    if isinstance(resolved, str):
        fail(resolved)
    return resolved


def _raise(message):
    raise KernelError(message)


def _check_triples(ctx, *names):
    for name in names:
        values = list(ctx.attr(name))
        ctx.enforce(len(values) in (1, 3),
                    lambda: f"{name} must hold 1 or 3 values (one per spatial "
                                           f"dim), got {values}")


def _check_layout(ctx, x, slot):
    layout, algorithm = ctx.attr("data_format"), ctx.attr("padding_algorithm")
    ctx.enforce(layout in _LAYOUTS, lambda: f"data_format must be NCDHW or NDHWC (or Paddle's "
                                     f"NCHW/NHWC for them), got {layout!r}")
    ctx.enforce(algorithm in _ALGORITHMS,
                lambda: f"padding_algorithm must be EXPLICIT, SAME or VALID, got {algorithm!r}")
    ctx.enforce(len(x) == 5, lambda: f"{slot} must be 5-D [N, C, D, H, W] (or NDHWC), got "
                             f"{slot}.shape={shape_str(x)}")


def _patch_index(padded, kernel, strides, dilations, outs):
    """Flat indices into a padded volume of dims `padded`: [K, L] (K taps, L windows), the
    taps and windows each in C order over their three dims."""
    check_temporary("the 3-D window index", (int(np.prod(kernel)), int(np.prod(outs))),
                    np.int64)
    place = (padded[1] * padded[2], padded[2], 1)  # a step along each dim, in flat units
    taps = (np.arange(kernel[0]) * (dilations[0] * place[0]))[:, None, None] \
        + (np.arange(kernel[1]) * (dilations[1] * place[1]))[None, :, None] \
        + (np.arange(kernel[2]) * dilations[2])[None, None, :]
    starts = (np.arange(outs[0]) * (strides[0] * place[0]))[:, None, None] \
        + (np.arange(outs[1]) * (strides[1] * place[1]))[None, :, None] \
        + (np.arange(outs[2]) * strides[2])[None, None, :]
    return taps.reshape(-1, 1).astype(np.int64) + starts.reshape(1, -1)


def _gather(x, kernel, strides, pads, dilations, outs, fill=0.0):
    """The [N, C, K, L] patches of `outs` windows; X is padded by pads' (before, after),
    the after side grown where the last window reaches further (ceil_mode)."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    pads = [(b, max(a, (o - 1) * st + d * (k - 1) + 1 - s - b)) for s, k, st, (b, a), d, o in
            zip(spatial, kernel, strides, pads, dilations, outs, strict=True)]
    padded = [s + b + a for s, (b, a) in zip(spatial, pads, strict=True)]
    check_temporary("the 3-D windows' patches", (n, c, int(np.prod(kernel)),
                                                 int(np.prod(outs))), x.dtype)
    flat = _patch_index(padded, kernel, strides, dilations, outs)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(max(b, 0), max(a, 0)) for b, a in pads],
                constant_values=fill)
    return xp.reshape(n, c, -1)[:, :, flat], (flat, padded, pads)    # [N, C, K, L]


def _scatter(patches, x_shape, index):
    flat, padded, pads = index
    n, c = x_shape[:2]
    acc = np.zeros((n, c, int(np.prod(padded))), dtype=patches.dtype)
    np.add.at(acc, (slice(None), slice(None), flat), patches)
    acc = acc.reshape((n, c) + tuple(padded))
    return acc[(slice(None), slice(None)) + tuple(slice(b, b + s) for (b, _), s in
                                                    zip(pads, x_shape[2:], strict=True))]


# -- conv3d ------------------------------------------------------------------------------------

def _conv_geometry(attrs, spatial, kernel, fail=_raise):
    """(strides, pads, dilations, output dims) of conv3d."""
    strides = _three(attrs["strides"])
    pads, dils = _resolve(attrs, spatial, kernel, _three(attrs["dilations"]), fail)
    outs = [cm.out_size(s, k, st, p, d) for s, k, st, p, d in zip(spatial, kernel, strides,
                                                                   pads, dils, strict=True)]
    return strides, pads, list(dils), outs


def _conv3d_ncdhw(attrs, x, filt):
    kernel, g = list(filt.shape[2:]), attrs["groups"]
    strides, pads, dils, outs = _conv_geometry(attrs, x.shape[2:], kernel)
    cols, _ = _gather(x, kernel, strides, pads, dils, outs)          # [N, C, K, L]
    n, c, k, L = cols.shape
    m = filt.shape[0]
    cols = cols.reshape(n, g, c // g * k, L)
    w = filt.reshape(g, m // g, -1)
    return np.einsum("gmq,ngql->ngml", w, cols).reshape((n, m) + tuple(outs))


def _conv3d(attrs, x, filt):
    out = _conv3d_ncdhw(attrs, _to_ncdhw(x, attrs), filt)
    return _from_ncdhw(out.astype(x.dtype), attrs)


def _conv3d_grad(attrs, x, filt, dout):
    xc, dc = _to_ncdhw(x, attrs), _to_ncdhw(dout, attrs)
    kernel, g = list(filt.shape[2:]), attrs["groups"]
    strides, pads, dils, outs = _conv_geometry(attrs, xc.shape[2:], kernel)
    cols, index = _gather(xc, kernel, strides, pads, dils, outs)
    n, c, k, L = cols.shape
    m = filt.shape[0]
    d = dc.reshape(n, g, m // g, L)
    w = filt.reshape(g, m // g, -1)
    dcols = np.einsum("gmq,ngml->ngql", w, d).reshape(n, c, k, L)
    dx = _scatter(dcols, xc.shape, index)
    dw = np.einsum("ngml,ngql->gmq", d, cols.reshape(n, g, c // g * k, L)).reshape(filt.shape)
    return _from_ncdhw(dx.astype(x.dtype), attrs), dw.astype(filt.dtype)


_CONV_ATTRS = [Attr("strides", "ints", [1, 1, 1], "per spatial dim"),
               Attr("paddings", "ints", [0, 0, 0],
                    "[pd, ph, pw] or [front, back, top, bottom, left, right]"),
               Attr("padding_algorithm", "string", "EXPLICIT", "EXPLICIT, SAME or VALID"),
               Attr("dilations", "ints", [1, 1, 1], "per spatial dim"),
               Attr("groups", "int", 1, "channel groups"),
               Attr("data_format", "string", "NCDHW",
                    "NCDHW or NDHWC (AnyLayout means NCDHW)")]


def _infer_conv3d(ctx):
    x, w = ctx.input_shape("Input"), ctx.input_shape("Filter")
    _check_layout(ctx, x, "Input")
    g = ctx.attr("groups")
    ctx.enforce(len(w) == 5, lambda: f"Filter must be [M, C / groups, kd, kh, kw], got "
                             f"{shape_str(w)}")
    c = x[4] if _channels_last(ctx.attrs) else x[1]
    ctx.enforce(c < 0 or w[1] * g == c, lambda: f"Filter's {w[1]} input channels times groups "
                f"{g} must equal Input's {c} channels")
    ctx.enforce_positive("strides", "dilations", "groups")
    ctx.enforce(w[0] < 0 or w[0] % g == 0, lambda: f"Filter's {w[0]} output channels must divide "
                                           f"into groups = {g}")
    _check_triples(ctx, "strides", "dilations")
    spatial = _spatial_of(x, ctx.attrs)
    *_, outs = _conv_geometry(ctx.attrs, spatial, list(w[2:]), ctx.fail)
    ctx.enforce(all(o != 0 and o >= -1 for o in outs), lambda:
                f"the kernel does not fit Input {shape_str(x)}: Output's spatial dims would "
                f"be {outs}")
    ctx.set_output("Output", _layout_shape(x[0], w[0], outs, ctx.attrs),
                   ctx.input_dtype("Input"))


register_simple(
    "conv3d", [In("Input", "[N, C, D, H, W] or [N, D, H, W, C]"),
               In("Filter", "[M, C / groups, kd, kh, kw]")],
    [Out("Output", "[N, M, od, oh, ow] (NDHWC: [N, od, oh, ow, M])")], _CONV_ATTRS,
    _infer_conv3d, _conv3d, backward=_conv3d_grad, wrt=["Input", "Filter"],
    out_slot="Output", doc=__doc__)


# -- conv3d_transpose ------------------------------------------------------------------------

def _transpose_geometry(attrs, spatial, kernel, fail=_raise):
    """(strides, pads, dilations, output dims) of conv3d_transpose."""
    strides = _three(attrs["strides"])
    pads, dils = _resolve(attrs, spatial, kernel, _three(attrs["dilations"]), fail)
    base = [cm.transpose_out_size(s, k, st, p, d) for s, k, st, p, d in
            zip(spatial, kernel, strides, pads, dils, strict=True)]
    size, extra = list(attrs["output_size"]), list(attrs["output_padding"])
    if size:
        if len(size) != 3:
            fail(f"output_size must hold [od, oh, ow], got {size}")
        for i in range(3):
            if base[i] >= 0 and not base[i] <= size[i] < base[i] + strides[i]:
                fail(f"output_size[{i}]={size[i]} must lie in [{base[i]}, "
                     f"{base[i] + strides[i]}) for these strides and paddings")
        outs = size
    elif extra:
        if len(extra) != 3:
            fail(f"output_padding must hold three values, got {extra}")
        for i in range(3):
            if not 0 <= extra[i] < max(strides[i], dils[i]):
                fail(f"output_padding[{i}]={extra[i]} must be smaller than the stride or "
                     f"dilation")
        outs = [b if b < 0 else b + e for b, e in zip(base, extra, strict=True)]
    else:
        outs = base
    if any(o == 0 or o < -1 for o in outs):
        fail(f"conv3d_transpose's Output would have spatial dims {outs}")
    return strides, pads, list(dils), outs


def _conv3d_transpose(attrs, x, filt):
    """Filter [C, M / groups, k...]: each input channel spreads into its group's outputs."""
    xc = _to_ncdhw(x, attrs)
    g = attrs["groups"]
    n, c = xc.shape[:2]
    m = filt.shape[1] * g
    kernel = list(filt.shape[2:])
    strides, pads, dils, outs = _transpose_geometry(attrs, xc.shape[2:], kernel)
    out_shape = (n, m) + tuple(outs)
    # the output volume padded so every input voxel's window lies inside it
    _, index = _gather(np.zeros((1, 1) + tuple(outs), x.dtype), kernel, strides, pads, dils,
                       list(xc.shape[2:]))
    w = filt.reshape(g, c // g, m // g, -1)                          # [g, c, m, K]
    xs = xc.reshape(n, g, c // g, -1)                                # [n, g, c, L]
    check_temporary("the 3-D windows' patches", (n, m) + index[0].shape, xc.dtype)
    cols = np.einsum("gcmk,ngcl->ngmkl", w, xs).reshape(n, m, index[0].shape[0],
                                                        index[0].shape[1])
    return _from_ncdhw(_scatter(cols, out_shape, index).astype(x.dtype), attrs)


def _conv3d_transpose_grad(attrs, x, filt, dout):
    xc, dc = _to_ncdhw(x, attrs), _to_ncdhw(dout, attrs)
    g = attrs["groups"]
    n, c = xc.shape[:2]
    m = filt.shape[1] * g
    kernel = list(filt.shape[2:])
    strides, pads, dils, _ = _transpose_geometry(attrs, xc.shape[2:], kernel)
    cols, _ = _gather(dc, kernel, strides, pads, dils, list(xc.shape[2:]))  # [n, m, K, L]
    cols = cols.reshape(n, g, m // g, cols.shape[2], cols.shape[3])
    w = filt.reshape(g, c // g, m // g, -1)
    xs = xc.reshape(n, g, c // g, -1)
    dx = np.einsum("gcmk,ngmkl->ngcl", w, cols).reshape(xc.shape)
    dw = np.einsum("ngcl,ngmkl->gcmk", xs, cols).reshape(filt.shape)
    return _from_ncdhw(dx.astype(x.dtype), attrs), dw.astype(filt.dtype)


def _infer_conv3d_transpose(ctx):
    x, w = ctx.input_shape("Input"), ctx.input_shape("Filter")
    _check_layout(ctx, x, "Input")
    g = ctx.attr("groups")
    ctx.enforce(len(w) == 5, lambda: f"Filter must be [C, M / groups, kd, kh, kw], got "
                             f"{shape_str(w)}")
    c = x[4] if _channels_last(ctx.attrs) else x[1]
    ctx.enforce(c < 0 or w[0] == c, lambda: f"Filter's first dim {w[0]} must equal Input's "
                f"{c} channels")
    ctx.enforce_positive("strides", "dilations", "groups")
    ctx.enforce(c < 0 or c % g == 0, lambda: f"Input's {c} channels must divide into groups = {g}")
    _check_triples(ctx, "strides", "dilations")
    *_, outs = _transpose_geometry(ctx.attrs, _spatial_of(x, ctx.attrs), list(w[2:]),
                                   ctx.fail)
    ctx.set_output("Output", _layout_shape(x[0], w[1] * g, outs, ctx.attrs),
                   ctx.input_dtype("Input"))


register_simple(
    "conv3d_transpose", [In("Input", "[N, C, D, H, W] or [N, D, H, W, C]"),
                         In("Filter", "[C, M / groups, kd, kh, kw]")],
    [Out("Output", "[N, M, od, oh, ow] (NDHWC: [N, od, oh, ow, M])")],
    _CONV_ATTRS + [Attr("output_padding", "ints", [], "extra voxels at the far side"),
                   Attr("output_size", "ints", [], "[od, oh, ow]; overrides output_padding")],
    _infer_conv3d_transpose, _conv3d_transpose, backward=_conv3d_transpose_grad,
    wrt=["Input", "Filter"], out_slot="Output", doc=__doc__)


# -- pool3d ----------------------------------------------------------------------------------

def _pool_geometry(attrs, spatial, fail=_raise):
    """(kernel, strides, pads, output dims) of a windowed pool3d (not adaptive)."""
    if attrs["global_pooling"]:
        return list(spatial), [1, 1, 1], [(0, 0)] * 3, [1, 1, 1]
    kernel, strides = _three(attrs["ksize"]), _three(attrs["strides"])
    pads, _ = _resolve(attrs, spatial, kernel, [1, 1, 1], fail)
    extra = [st - 1 if attrs["ceil_mode"] else 0 for st in strides]
    outs = [-1 if s < 0 or b < 0 else (s + b + a - k + e) // st + 1
            for s, k, st, (b, a), e in zip(spatial, kernel, strides, pads, extra, strict=True)]
    return kernel, strides, pads, outs


def _pool_counts(spatial, kernel, strides, pads, outs, exclusive):
    """What each window's sum is divided by, [1, 1, L]: with exclusive, its voxels inside
    the volume; without, the window cut where the padding would end if the far side were
    padded like the near one (Paddle 2.x/3.x's kernel: min(start + k, size + p0) - start,
    start = o stride - p0; it counts the whole window unless ceil_mode or a longer far
    padding runs it past that end)."""
    if exclusive:
        ones, _ = _gather(np.ones((1, 1) + tuple(spatial)), kernel, strides, pads, [1, 1, 1],
                          outs)
        return ones.sum(axis=2)
    per_dim = []
    for s, k, st, (b, _), o in zip(spatial, kernel, strides, pads, outs, strict=True):
        start = np.arange(o) * st - b
        per_dim.append(np.minimum(start + k, s + b) - start)
    counts = per_dim[0][:, None, None] * per_dim[1][None, :, None] * per_dim[2][None, None, :]
    return counts.reshape(1, 1, -1).astype(np.float64)


def _pool3d_ncdhw(attrs, x):
    if attrs["adaptive"]:
        return _adaptive_pool3d(attrs, x)
    kernel, strides, pads, outs = _pool_geometry(attrs, x.shape[2:])
    n, c = x.shape[:2]
    if attrs["pooling_type"] == "max":
        cols, _ = _gather(x, kernel, strides, pads, [1, 1, 1], outs, fill=-np.inf)
        return cols.max(axis=2).reshape((n, c) + tuple(outs))
    cols, _ = _gather(x, kernel, strides, pads, [1, 1, 1], outs)
    count = _pool_counts(x.shape[2:], kernel, strides, pads, outs, attrs["exclusive"])
    return (cols.sum(axis=2) / count).reshape((n, c) + tuple(outs))


def _pool3d(attrs, x):
    return _from_ncdhw(_pool3d_ncdhw(attrs, _to_ncdhw(x, attrs)).astype(x.dtype), attrs)


def _pool3d_grad(attrs, x, out, dout):
    xc, oc, dc = (_to_ncdhw(a, attrs) for a in (x, out, dout))
    if attrs["adaptive"]:
        return _from_ncdhw(_adaptive_pool3d_grad(attrs, xc, oc, dc), attrs)
    kernel, strides, pads, outs = _pool_geometry(attrs, xc.shape[2:])
    n, c = xc.shape[:2]
    d = dc.reshape(n, c, 1, -1)
    if attrs["pooling_type"] == "max":
        cols, index = _gather(xc, kernel, strides, pads, [1, 1, 1], outs, fill=-np.inf)
        first = cols.argmax(axis=2)[:, :, None, :]                   # the first maximum
        dcols = np.zeros_like(cols)
        np.put_along_axis(dcols, first, d, axis=2)
    else:
        cols, index = _gather(xc, kernel, strides, pads, [1, 1, 1], outs)
        count = _pool_counts(xc.shape[2:], kernel, strides, pads, outs, attrs["exclusive"])
        dcols = np.broadcast_to(d / count, cols.shape).copy()
    return _from_ncdhw(_scatter(dcols, xc.shape, index).astype(x.dtype), attrs)


def _infer_pool3d(ctx):
    x = ctx.input_shape("X")
    _check_layout(ctx, x, "X")
    ctx.enforce(ctx.attr("pooling_type") in ("max", "avg"),
                lambda: f"pooling_type must be max or avg, got {ctx.attr('pooling_type')!r}")
    ctx.enforce_positive("ksize", "strides")
    _check_triples(ctx, "ksize", "strides")
    spatial = _spatial_of(x, ctx.attrs)
    if ctx.attr("adaptive"):
        outs = _three(ctx.attr("ksize"))
        ctx.enforce(len(outs) == 3, lambda: f"ksize must hold the 3 output dims when adaptive, got "
                                    f"{list(ctx.attr('ksize'))}")
    else:
        *_, outs = _pool_geometry(ctx.attrs, spatial, ctx.fail)
        ctx.enforce(all(o != 0 and o >= -1 for o in outs), lambda:
                    f"the window does not fit X {shape_str(x)}: Out's spatial dims would be "
                    f"{outs}")
    c = x[4] if _channels_last(ctx.attrs) else x[1]
    ctx.set_output("Out", _layout_shape(x[0], c, outs, ctx.attrs), ctx.input_dtype("X"))


register_simple(
    "pool3d", [In("X", "[N, C, D, H, W] or [N, D, H, W, C]")],
    [Out("Out", "[N, C, od, oh, ow] (NDHWC: [N, od, oh, ow, C])")],
    [Attr("pooling_type", "string", "max", "max or avg"),
     Attr("ksize", "ints", [2, 2, 2], "the window; the output size when adaptive"),
     Attr("strides", "ints", [1, 1, 1], ""),
     Attr("paddings", "ints", [0, 0, 0],
          "[pd, ph, pw] or [front, back, top, bottom, left, right]"),
     Attr("padding_algorithm", "string", "EXPLICIT", "EXPLICIT, SAME or VALID"),
     Attr("global_pooling", "bool", False, "pool the whole volume"),
     Attr("exclusive", "bool", True, "avg ignores padding"),
     Attr("adaptive", "bool", False, "ksize is the output size; windows split X evenly"),
     Attr("ceil_mode", "bool", False, "round the output size up"),
     Attr("data_format", "string", "NCDHW", "NCDHW or NDHWC (AnyLayout means NCDHW)")],
    _infer_pool3d, _pool3d, backward=_pool3d_grad, wrt=["X"], keep=["Out"], doc=__doc__)


# -- adaptive pool3d ---------------------------------------------------------------------------

def _membership(size: int, out: int) -> np.ndarray:
    """[out, size] bool: output cell i pools [floor(i size / out), ceil((i + 1) size / out))."""
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    pos = np.arange(size)
    return (pos[None, :] >= start[:, None]) & (pos[None, :] < end[:, None])


def _adaptive_members(attrs, x):
    return [_membership(s, o) for s, o in zip(x.shape[2:], _three(attrs["ksize"]),
                                              strict=True)]


def _adaptive_pool3d(attrs, x):
    md, mh, mw = _adaptive_members(attrs, x)
    if attrs["pooling_type"] == "avg":
        md, mh, mw = (m.astype(x.dtype) for m in (md, mh, mw))
        total = np.einsum("ad,bh,ew,ncdhw->ncabe", md, mh, mw, x)
        count = np.einsum("ad,bh,ew->abe", md, mh, mw)
        return (total / count).astype(x.dtype)
    neg = np.array(-np.inf, dtype=x.dtype)
    t = np.where(md[None, None, :, :, None, None], x[:, :, None], neg).max(axis=3)
    t = np.where(mh[None, None, None, :, :, None], t[:, :, :, None], neg).max(axis=4)
    t = np.where(mw[None, None, None, None, :, :], t[:, :, :, :, None], neg).max(axis=5)
    return t.astype(x.dtype)


def _adaptive_pool3d_grad(attrs, x, out, dout):
    md, mh, mw = _adaptive_members(attrs, x)
    if attrs["pooling_type"] == "avg":
        md, mh, mw = (m.astype(x.dtype) for m in (md, mh, mw))
        count = np.einsum("ad,bh,ew->abe", md, mh, mw)
        return np.einsum("ad,bh,ew,ncabe->ncdhw", md, mh, mw, dout / count).astype(x.dtype)
    # every element equal to its window's maximum takes that window's dOut
    member = np.einsum("ad,bh,ew->abedhw", md, mh, mw).astype(bool)
    hit = member[None, None] & (x[:, :, None, None, None] == out[..., None, None, None])
    return np.einsum("ncabedhw,ncabe->ncdhw", hit.astype(x.dtype), dout).astype(x.dtype)


def _infer_adaptive(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 5, lambda: f"X must be [N, C, D, H, W], got {list(x)}")
    ctx.enforce(ctx.attr("pooling_type") in ("max", "avg"),
                lambda: f"pooling_type must be max or avg, got {ctx.attr('pooling_type')!r}")
    size = _three(ctx.attr("ksize"))
    ctx.enforce(all(s >= 1 for s in size), lambda: f"the output size must be >= 1, got {size}")
    ctx.set_output("Out", [x[0], x[1]] + size, ctx.input_dtype("X"))


register_simple(
    "adaptive_pool3d", [In("X", "[N, C, D, H, W]")], [Out("Out", "[N, C] + ksize")],
    [Attr("pooling_type", "string", "max", "max or avg"),
     Attr("ksize", "ints", [1, 1, 1], "the output size [od, oh, ow]")],
    _infer_adaptive, _adaptive_pool3d, backward=_adaptive_pool3d_grad, wrt=["X"],
    keep=["Out"], doc="Out[.., i, j, k] = max or mean of X over the window cell (i, j, k) "
                      "covers: [floor(i D / od), ceil((i + 1) D / od)) per dim. The max "
                      "gradient goes to every element equal to its window's maximum.")
