"""conv3d, conv3d_transpose and pool3d (+ grads) over NCDHW volumes, by patch gathering:

    conv3d            Out[n, m] = sum_{c, k} W[m, c, k] X_pad[n, c, o * stride + k * dilation]
                      (groups split C and M evenly)
    conv3d_transpose  the adjoint of conv3d: every input voxel adds W times itself into the
                      output window it maps to; out = (in - 1) stride - 2 pad + dil (k - 1) + 1
    pool3d            max or average over ksize windows (global_pooling: the whole volume);
                      average divides by the window's voxels inside the volume when exclusive

Patches are gathered with one fancy index ([N, C, K, L] for K kernel offsets and L output
positions); gradients scatter them back with np.add.at.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _three(v) -> list[int]:
    v = list(v)
    return v * 3 if len(v) == 1 else v


def _out_size(size, k, stride, pad, dilation):
    return (size + 2 * pad - dilation * (k - 1) - 1) // stride + 1


def _patch_index(spatial, kernel, strides, pads, dilations):
    """Flat indices into the padded volume: [K, L], and the output dims."""
    outs = [_out_size(s, k, st, p, d) for s, k, st, p, d in zip(spatial, kernel, strides, pads,
                                                                 dilations, strict=True)]
    padded = [s + 2 * p for s, p in zip(spatial, pads, strict=True)]
    k_off = np.stack(np.meshgrid(*[np.arange(k) * d for k, d in zip(kernel, dilations,
                                                                    strict=True)],
                                 indexing="ij"), -1).reshape(-1, 3)
    o_off = np.stack(np.meshgrid(*[np.arange(o) * st for o, st in zip(outs, strides,
                                                                      strict=True)],
                                 indexing="ij"), -1).reshape(-1, 3)
    pos = k_off[:, None, :] + o_off[None, :, :]                      # [K, L, 3]
    flat = (pos[..., 0] * padded[1] + pos[..., 1]) * padded[2] + pos[..., 2]
    return flat, outs, padded


def _gather(x, kernel, strides, pads, dilations, fill=0.0):
    n, c = x.shape[:2]
    flat, outs, padded = _patch_index(x.shape[2:], kernel, strides, pads, dilations)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pads], constant_values=fill)
    return xp.reshape(n, c, -1)[:, :, flat], outs, (flat, padded)   # [N, C, K, L]


def _scatter(patches, x_shape, pads, index):
    flat, padded = index
    n, c = x_shape[:2]
    acc = np.zeros((n, c, int(np.prod(padded))), dtype=patches.dtype)
    np.add.at(acc, (slice(None), slice(None), flat), patches)
    acc = acc.reshape((n, c) + tuple(padded))
    return acc[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in
                                                    zip(pads, x_shape[2:], strict=True))]


def _conv_args(attrs, filt):
    return (list(filt.shape[2:]), _three(attrs["strides"]), _three(attrs["paddings"]),
            _three(attrs["dilations"]), attrs["groups"])


def _conv3d(attrs, x, filt):
    kernel, strides, pads, dils, g = _conv_args(attrs, filt)
    cols, outs, _ = _gather(x, kernel, strides, pads, dils)            # [N, C, K, L]
    n, c, k, L = cols.shape
    m = filt.shape[0]
    cols = cols.reshape(n, g, c // g * k, L)
    w = filt.reshape(g, m // g, -1)
    out = np.einsum("gmq,ngql->ngml", w, cols).reshape((n, m) + tuple(outs))
    return out.astype(x.dtype)


def _conv3d_grad(attrs, x, filt, dout):
    kernel, strides, pads, dils, g = _conv_args(attrs, filt)
    cols, outs, index = _gather(x, kernel, strides, pads, dils)
    n, c, k, L = cols.shape
    m = filt.shape[0]
    d = dout.reshape(n, g, m // g, L)
    w = filt.reshape(g, m // g, -1)
    dcols = np.einsum("gmq,ngml->ngql", w, d).reshape(n, c, k, L)
    dx = _scatter(dcols, x.shape, pads, index)
    dw = np.einsum("ngml,ngql->gmq", d, cols.reshape(n, g, c // g * k, L)).reshape(filt.shape)
    return dx.astype(x.dtype), dw.astype(filt.dtype)


_CONV_ATTRS = [Attr("strides", "ints", [1, 1, 1], "per spatial dim"),
               Attr("paddings", "ints", [0, 0, 0], "symmetric, per spatial dim"),
               Attr("dilations", "ints", [1, 1, 1], "per spatial dim"),
               Attr("groups", "int", 1, "channel groups"),
               Attr("data_format", "string", "NCDHW", "NCDHW only")]


def _infer_conv3d(ctx):
    x, w = ctx.input_shape("Input"), ctx.input_shape("Filter")
    g = ctx.attr("groups")
    ctx.enforce(len(x) == 5 and len(w) == 5, f"Input [N, C, D, H, W] and Filter [M, C / groups, "
                f"kd, kh, kw] expected, got {list(x)}, {list(w)}")
    ctx.enforce(x[1] < 0 or w[1] * g == x[1], f"Filter's {w[1]} input channels times groups "
                f"{g} must equal Input's {x[1]} channels")
    ctx.enforce(ctx.attr("data_format") == "NCDHW", "data_format must be NCDHW")
    ctx.enforce_positive("strides", "dilations", "groups")
    outs = [(_out_size(s, k, st, p, d) if s >= 0 else -1) for s, k, st, p, d in zip(
        x[2:], w[2:], _three(ctx.attr("strides")), _three(ctx.attr("paddings")),
        _three(ctx.attr("dilations")), strict=True)]
    ctx.enforce(all(o != 0 and o >= -1 for o in outs), f"the kernel does not fit Input {list(x)}")
    ctx.set_output("Output", [x[0], w[0]] + outs, ctx.input_dtype("Input"))


register_simple(
    "conv3d", [In("Input", "[N, C, D, H, W]"), In("Filter", "[M, C / groups, kd, kh, kw]")],
    [Out("Output", "[N, M, od, oh, ow]")], _CONV_ATTRS, _infer_conv3d, _conv3d,
    backward=_conv3d_grad, wrt=["Input", "Filter"], out_slot="Output", doc=__doc__)


# -- conv3d_transpose ------------------------------------------------------------------------

def _t_out(size, k, stride, pad, dil):
    return (size - 1) * stride - 2 * pad + dil * (k - 1) + 1


def _t_shape(attrs, x, filt):
    return [_t_out(s, k, st, p, d) for s, k, st, p, d in zip(
        x.shape[2:], filt.shape[2:], _three(attrs["strides"]), _three(attrs["paddings"]),
        _three(attrs["dilations"]), strict=True)]


def _conv3d_transpose(attrs, x, filt):
    """Filter [C, M / groups, k...]: each input channel spreads into its group's outputs."""
    g = attrs["groups"]
    n, c = x.shape[:2]
    m = filt.shape[1] * g
    out_spatial = _t_shape(attrs, x, filt)
    out_shape = (n, m) + tuple(out_spatial)
    kernel, strides, pads, dils = (list(filt.shape[2:]), _three(attrs["strides"]),
                                   _three(attrs["paddings"]), _three(attrs["dilations"]))
    flat, _, padded = _patch_index(out_spatial, kernel, strides, pads, dils)
    w = filt.reshape(g, c // g, m // g, -1)                          # [g, c, m, K]
    xs = x.reshape(n, g, c // g, -1)                                 # [n, g, c, L]
    cols = np.einsum("gcmk,ngcl->ngmkl", w, xs).reshape(n, m, flat.shape[0], flat.shape[1])
    return _scatter(cols, out_shape, pads, (flat, padded)).astype(x.dtype)


def _conv3d_transpose_grad(attrs, x, filt, dout):
    g = attrs["groups"]
    n, c = x.shape[:2]
    m = filt.shape[1] * g
    kernel, strides, pads, dils = (list(filt.shape[2:]), _three(attrs["strides"]),
                                   _three(attrs["paddings"]), _three(attrs["dilations"]))
    cols, _, _ = _gather(dout, kernel, strides, pads, dils)          # [n, m, K, L]
    cols = cols.reshape(n, g, m // g, cols.shape[2], cols.shape[3])
    w = filt.reshape(g, c // g, m // g, -1)
    xs = x.reshape(n, g, c // g, -1)
    dx = np.einsum("gcmk,ngmkl->ngcl", w, cols).reshape(x.shape)
    dw = np.einsum("ngcl,ngmkl->gcmk", xs, cols).reshape(filt.shape)
    return dx.astype(x.dtype), dw.astype(filt.dtype)


def _infer_conv3d_transpose(ctx):
    x, w = ctx.input_shape("Input"), ctx.input_shape("Filter")
    g = ctx.attr("groups")
    ctx.enforce(len(x) == 5 and len(w) == 5, f"Input [N, C, D, H, W] and Filter [C, M / "
                f"groups, kd, kh, kw] expected, got {list(x)}, {list(w)}")
    ctx.enforce(x[1] < 0 or w[0] == x[1], f"Filter's first dim {w[0]} must equal Input's "
                f"{x[1]} channels")
    ctx.enforce_positive("strides", "dilations", "groups")
    outs = [(_t_out(s, k, st, p, d) if s >= 0 else -1) for s, k, st, p, d in zip(
        x[2:], w[2:], _three(ctx.attr("strides")), _three(ctx.attr("paddings")),
        _three(ctx.attr("dilations")), strict=True)]
    ctx.set_output("Output", [x[0], w[1] * g] + outs, ctx.input_dtype("Input"))


register_simple(
    "conv3d_transpose", [In("Input", "[N, C, D, H, W]"),
                         In("Filter", "[C, M / groups, kd, kh, kw]")],
    [Out("Output", "[N, M, od, oh, ow]")], _CONV_ATTRS, _infer_conv3d_transpose,
    _conv3d_transpose, backward=_conv3d_transpose_grad, wrt=["Input", "Filter"],
    out_slot="Output", doc=__doc__)


# -- pool3d ----------------------------------------------------------------------------------

def _pool_args(attrs, x):
    if attrs["global_pooling"]:
        return list(x.shape[2:]), [1, 1, 1], [0, 0, 0]
    return _three(attrs["ksize"]), _three(attrs["strides"]), _three(attrs["paddings"])


def _pool3d(attrs, x):
    kernel, strides, pads = _pool_args(attrs, x)
    n, c = x.shape[:2]
    if attrs["pooling_type"] == "max":
        cols, outs, _ = _gather(x, kernel, strides, pads, [1, 1, 1], fill=-np.inf)
        return cols.max(axis=2).reshape((n, c) + tuple(outs)).astype(x.dtype)
    cols, outs, _ = _gather(x, kernel, strides, pads, [1, 1, 1])
    total = cols.sum(axis=2)
    if attrs["exclusive"]:
        ones, _, _ = _gather(np.ones((1, 1) + x.shape[2:]), kernel, strides, pads, [1, 1, 1])
        count = ones.sum(axis=2)
    else:
        count = float(np.prod(kernel))
    return (total / count).reshape((n, c) + tuple(outs)).astype(x.dtype)


def _pool3d_grad(attrs, x, out, dout):
    kernel, strides, pads = _pool_args(attrs, x)
    n, c = x.shape[:2]
    d = dout.reshape(n, c, 1, -1)
    if attrs["pooling_type"] == "max":
        cols, _, index = _gather(x, kernel, strides, pads, [1, 1, 1], fill=-np.inf)
        first = cols.argmax(axis=2)[:, :, None, :]                   # the first maximum
        dcols = np.zeros_like(cols)
        np.put_along_axis(dcols, first, d, axis=2)
    else:
        cols, _, index = _gather(x, kernel, strides, pads, [1, 1, 1])
        if attrs["exclusive"]:
            ones, _, _ = _gather(np.ones((1, 1) + x.shape[2:]), kernel, strides, pads,
                                 [1, 1, 1])
            count = ones.sum(axis=2, keepdims=True)
        else:
            count = float(np.prod(kernel))
        dcols = np.broadcast_to(d / count, cols.shape).copy()
    return _scatter(dcols, x.shape, pads, index).astype(x.dtype)


def _infer_pool3d(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 5, f"X must be [N, C, D, H, W], got {list(x)}")
    ctx.enforce(ctx.attr("pooling_type") in ("max", "avg"),
                f"pooling_type must be max or avg, got {ctx.attr('pooling_type')!r}")
    ctx.enforce_positive("ksize", "strides")
    if ctx.attr("global_pooling"):
        outs = [1, 1, 1]
    else:
        outs = [(_out_size(s, k, st, p, 1) if s >= 0 else -1) for s, k, st, p in zip(
            x[2:], _three(ctx.attr("ksize")), _three(ctx.attr("strides")),
            _three(ctx.attr("paddings")), strict=True)]
    ctx.set_output("Out", [x[0], x[1]] + outs, ctx.input_dtype("X"))


register_simple(
    "pool3d", [In("X", "[N, C, D, H, W]")], [Out("Out", "[N, C, od, oh, ow]")],
    [Attr("pooling_type", "string", "max", "max or avg"),
     Attr("ksize", "ints", [2, 2, 2], "the window"), Attr("strides", "ints", [1, 1, 1], ""),
     Attr("paddings", "ints", [0, 0, 0], "symmetric"),
     Attr("global_pooling", "bool", False, "pool the whole volume"),
     Attr("exclusive", "bool", True, "avg ignores padding"),
     Attr("data_format", "string", "NCDHW", "NCDHW only")],
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
    ctx.enforce(len(x) == 5, f"X must be [N, C, D, H, W], got {list(x)}")
    ctx.enforce(ctx.attr("pooling_type") in ("max", "avg"),
                f"pooling_type must be max or avg, got {ctx.attr('pooling_type')!r}")
    size = _three(ctx.attr("ksize"))
    ctx.enforce(all(s >= 1 for s in size), f"the output size must be >= 1, got {size}")
    ctx.set_output("Out", [x[0], x[1]] + size, ctx.input_dtype("X"))


register_simple(
    "adaptive_pool3d", [In("X", "[N, C, D, H, W]")], [Out("Out", "[N, C] + ksize")],
    [Attr("pooling_type", "string", "max", "max or avg"),
     Attr("ksize", "ints", [1, 1, 1], "the output size [od, oh, ow]")],
    _infer_adaptive, _adaptive_pool3d, backward=_adaptive_pool3d_grad, wrt=["X"],
    keep=["Out"], doc="Out[.., i, j, k] = max or mean of X over the window cell (i, j, k) "
                      "covers: [floor(i D / od), ceil((i + 1) D / od)) per dim. The max "
                      "gradient goes to every element equal to its window's maximum.")
