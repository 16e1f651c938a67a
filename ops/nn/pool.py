"""pool2d (+ pool2d_grad): max or average pooling over 2-D windows, Paddle's rules; and
max_pool2d_with_index (+ _grad), max pooling that also says where each maximum was.

X is [N, C, H, W] (NHWC with data_format="NHWC"). Output cell (p, q) pools the
window rows [p*sh - pad_top, + kh) and cols [q*sw - pad_left, + kw), clipped
to X (padding is never read):

    max:  Out = the window's maximum
    avg:  Out = the window's sum / (its clipped size if exclusive, else kh*kw)
    OH = (H + pad_top + pad_bottom - kh) // sh + 1    (ceil_mode: rounded up)

`paddings` takes [ph, pw] or [top, bottom, left, right]; `padding_algorithm`
SAME / VALID as for conv2d. `global_pooling` pools all of H x W (ksize and
paddings ignored). `adaptive` makes Out ksize = [OH, OW] cells, cell p
covering rows [floor(p*H/OH), ceil((p+1)*H/OH)) (avg divides by that size).

Gradients: avg spreads dOut[p, q] / size over the window; max sends dOut to
the first element of the window (row-major) equal to Out, as Paddle does.
Regular windows are strided slices of the padded input, one numpy pass per
window tap. Adaptive cells that tile X (global pooling among them) are a
reshape of X and one reduction; uneven ones reduce OH row bands, then OW column
bands (a rectangle's max or sum is separable); their avg gradient is two
products with 0/1 cell indicators.

max_pool2d_with_index (Paddle 2.x's F.max_pool2d(return_mask=True), nn.MaxUnPool2D's
partner; NCHW only):

    Out[n, c, i, j]  = max of X[n, c] over window (i, j)
    Mask[n, c, i, j] = the argmax's flat position r * W + s in X[n, c] (first on ties)

windows of ksize at strides, X padded by paddings (never chosen), ceil_mode rounding the
output size up; global_pooling takes the whole map; adaptive splits H into ksize[0] bins
[floor(i H / oh), ceil((i + 1) H / oh)) (and W alike). dX = dOut at Mask.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.limits import check_temporary
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.nn import conv_math as cm
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [
    Attr("pooling_type", "string", "max", "max or avg"),
    Attr("ksize", "ints", [1, 1], "[kh, kw]; the output size when adaptive"),
    Attr("global_pooling", "bool", False, "pool all of H x W"),
    Attr("strides", "ints", [1, 1], "[sh, sw]"),
    Attr("paddings", "ints", [0, 0], "[ph, pw] or [top, bottom, left, right]"),
    Attr("exclusive", "bool", True, "avg: divide by the clipped window size, not kh*kw"),
    Attr("adaptive", "bool", False, "ksize is the output size; windows split X evenly"),
    Attr("ceil_mode", "bool", False, "round the output size up"),
    Attr("data_format", "string", "NCHW", "NCHW or NHWC (AnyLayout means NCHW)"),
    Attr("padding_algorithm", "string", "EXPLICIT", "EXPLICIT, SAME or VALID"),
]

pool2d = register_op(
    "pool2d",
    inputs=[In("X", "[N, C, H, W] or [N, H, W, C]")],
    outputs=[Out("Out")],
    attrs=_ATTRS,
    doc=__doc__,
)


def plan(attrs, hw):
    """("global" | "adaptive" | "window", ksize, strides, pads, out_hw) for spatial dims hw."""
    if attrs["global_pooling"]:
        return "global", tuple(hw), (1, 1), ((0, 0), (0, 0)), (1, 1)
    ksize = tuple(attrs["ksize"])
    if attrs["adaptive"]:
        return "adaptive", ksize, (1, 1), ((0, 0), (0, 0)), ksize
    strides = tuple(attrs["strides"])
    resolved = cm.resolve_padding(hw, ksize, strides, attrs["paddings"],
                                  attrs["padding_algorithm"], [1, 1])
    if isinstance(resolved, str):
        return resolved
    pads = resolved[0]
    out = []
    for size, k, s, (p0, p1) in zip(hw, ksize, strides, pads, strict=True):
        if size < 0 or p0 < 0:
            out.append(-1)
        else:
            span = size + p0 + p1 - k + (s - 1 if attrs["ceil_mode"] else 0)
            out.append(span // s + 1 if span >= 0 else 0)
    return "window", ksize, strides, pads, tuple(out)


@pool2d.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 4,
                lambda: f"X must be 4-D [N, C, H, W] (or NHWC), got X.shape={shape_str(x)}")
    layout = ctx.attr("data_format")
    ctx.enforce(layout in ("NCHW", "NHWC", "AnyLayout"),
                lambda: f"data_format must be NCHW or NHWC, got {layout!r}")
    ptype = ctx.attr("pooling_type")
    ctx.enforce(ptype in ("max", "avg"), lambda: f"pooling_type must be max or avg, got {ptype!r}")
    algorithm = ctx.attr("padding_algorithm")
    ctx.enforce(algorithm in ("EXPLICIT", "SAME", "VALID"),
                lambda: f"padding_algorithm must be EXPLICIT, SAME or VALID, got {algorithm!r}")
    for name in ("ksize", "strides"):
        values = ctx.attr(name)
        ctx.enforce(ctx.attr("global_pooling") or (len(values) == 2 and min(values) > 0),
                    lambda: f"{name} must hold two positive values, got {list(values)}")
    last = layout == "NHWC"
    hw = tuple(x[1:3]) if last else tuple(x[2:])
    result = plan(ctx.attrs, hw)
    if isinstance(result, str):
        ctx.fail(result)
    out = result[4]
    ctx.enforce(all(d > 0 or d == -1 for d in out), lambda:
                f"the window {list(result[1])} does not fit X's spatial dims {list(hw)} with "
                f"paddings {[list(p) for p in result[3]]}: Out would be {list(out)}")
    c = x[3] if last else x[1]
    ctx.set_output("Out", [x[0], *out, c] if last else [x[0], c, *out], ctx.input_dtype("X"))


def _to_nchw(a, attrs):
    return a.transpose(0, 3, 1, 2) if attrs["data_format"] == "NHWC" else a


def _from_nchw(a, attrs):
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1)) if attrs["data_format"] == "NHWC" else a


# --- regular windows: strided slices of the padded input ---------------------------------------
def _padding(hw, ksize, strides, pads, out):
    """(before, after) per dim, after grown so ceil_mode's last window fits."""
    result = []
    for size, k, s, (p0, p1), o in zip(hw, ksize, strides, pads, out, strict=True):
        result.append((p0, max(p1, (o - 1) * s + k - size - p0)))
    return result


def _pad(x, pads, value):
    """x padded with `value`, keeping its memory layout (conv outputs are channels-last)."""
    (t, b), (lft, r) = pads
    n, c, h, w = x.shape
    if x.transpose(0, 2, 3, 1).flags.c_contiguous and not x.flags.c_contiguous:
        xp = np.full((n, h + t + b, w + lft + r, c), value, dtype=x.dtype)
        xp[:, t:t + h, lft:lft + w] = x.transpose(0, 2, 3, 1)
        return xp.transpose(0, 3, 1, 2)
    xp = np.full((n, c, h + t + b, w + lft + r), value, dtype=x.dtype)
    xp[:, :, t:t + h, lft:lft + w] = x
    return xp


def _taps(ksize, strides, out):
    (kh, kw), (sh, sw), (oh, ow) = ksize, strides, out
    for i in range(kh):
        for j in range(kw):
            yield np.s_[..., i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]


def _window_sizes(hw, ksize, strides, pads, out, exclusive, dtype):
    if not exclusive:
        return np.asarray(ksize[0] * ksize[1], dtype=dtype)
    ones = _pad(np.ones((1, 1) + tuple(hw), dtype=dtype), pads, 0)
    count = np.zeros(out, dtype=dtype)
    for tap in _taps(ksize, strides, out):
        count += ones[tap][0, 0]
    return count


def _window_forward(x, ptype, ksize, strides, pads, out, exclusive):
    pads = _padding(x.shape[2:], ksize, strides, pads, out)
    if ptype == "max":
        return _max_window(x, ksize, strides, pads, out)
    xp = _pad(x, pads, 0)
    result = np.zeros_like(xp[next(_taps(ksize, strides, out))])
    for tap in _taps(ksize, strides, out):
        result += xp[tap]
    result /= _window_sizes(x.shape[2:], ksize, strides, pads, out, exclusive, x.dtype)
    return result


def _max_window(x, ksize, strides, pads, out):
    """Max pooling as the max over the window's columns of the max over its rows, worked
    in X's memory order (conv outputs are channels-last) and with no padded copy of X:
    each tap reads only the outputs whose window it falls in, so the -inf padding is
    never written (3x3 stride 2 over [1, 64, 112, 112]: 1.6x faster, channels-last
    1.5x; the same bits)."""
    last = not x.flags.c_contiguous and x.transpose(0, 2, 3, 1).flags.c_contiguous
    if not last and strides[1] == 1 and any(p for pair in pads for p in pair):
        # NCHW at column stride 1: a clipped tap along W is a short run per row, which
        # numpy's in-place maximum walks slowly; one padded copy keeps every tap whole
        # ([1, 192, 28, 28], 3x3/1: 372 us this way, 477 clipped).
        xp = _pad(x, pads, -np.inf)
        (kh, kw), (sh, sw), (oh, ow) = ksize, strides, out
        bands = _max_of([xp[..., i:i + sh * (oh - 1) + 1:sh, :] for i in range(kh)])
        return _max_of([bands[..., j:j + sw * (ow - 1) + 1:sw] for j in range(kw)])
    view = x.transpose(0, 2, 3, 1) if last else x
    h_axis, w_axis = (1, 2) if last else (2, 3)
    bands = _max_taps(view, h_axis, ksize[0], strides[0], pads[0][0], out[0])
    result = _max_taps(bands, w_axis, ksize[1], strides[1], pads[1][0], out[1])
    return result.transpose(0, 3, 1, 2) if last else result


def _max_of(slices: list) -> np.ndarray:
    """The elementwise max of same-shaped slices, in a fresh array of their memory order
    (the first maximum writes it: no copy pass)."""
    if len(slices) == 1:
        return slices[0].copy(order="K")
    result = np.maximum(slices[0], slices[1])
    for tap in slices[2:]:
        np.maximum(result, tap, out=result)
    return result


def _max_taps(v, axis: int, k: int, s: int, pad: int, out: int) -> np.ndarray:
    """The max over k taps along `axis` (stride s, `pad` before) into `out` positions: a
    fresh array of v's memory order. Output p reads input i + s * p - pad of tap i."""
    size = v.shape[axis]
    taps = []  # (first output, end, strided view of the input it reads)
    for i in range(k):
        lo = max(0, -(-(pad - i) // s))
        hi = min(out, (size - 1 - i + pad) // s + 1)
        if hi > lo:
            start = i + s * lo - pad
            index = [slice(None)] * v.ndim
            index[axis] = slice(start, start + s * (hi - lo - 1) + 1, s)
            taps.append((lo, hi, v[tuple(index)]))
    whole = [t for lo, hi, t in taps if lo == 0 and hi == out]
    if len(whole) >= 2:
        result = np.maximum(whole[0], whole[1])  # the first maximum writes it: no copy pass
        whole = whole[:2]
    elif whole:
        result = whole[0].copy()
    else:
        shape = list(v.shape)
        shape[axis] = out
        result = np.full(shape, -np.inf, v.dtype)  # a window all padding stays -inf
    for lo, hi, t in taps:
        if any(t is w for w in whole):
            continue
        index = [slice(None)] * v.ndim
        index[axis] = slice(lo, hi)
        part = result[tuple(index)]
        np.maximum(part, t, out=part)
    return result


def _window_backward(x, y, dy, ptype, ksize, strides, pads, out, exclusive):
    pads = _padding(x.shape[2:], ksize, strides, pads, out)
    (t, _), (lft, _) = pads
    h, w = x.shape[2:]
    dxp = _pad(np.zeros_like(dy, shape=x.shape), pads, 0)
    if ptype == "max":
        xp = _pad(x, pads, -np.inf)
        open_ = np.ones(y.shape, dtype=bool)  # cells whose max has not been found yet
        for tap in _taps(ksize, strides, out):
            hit = (xp[tap] == y) & open_
            dxp[tap] += dy * hit
            open_ &= ~hit
    else:
        share = dy / _window_sizes(x.shape[2:], ksize, strides, pads, out, exclusive, dy.dtype)
        for tap in _taps(ksize, strides, out):
            dxp[tap] += share
    return dxp[:, :, t:t + h, lft:lft + w]


# --- adaptive windows: a reshape when they tile X, else separable row/column reductions --------
def _adaptive_bounds(size: int, out: int):
    starts = (np.arange(out) * size) // out
    ends = -((-(np.arange(1, out + 1) * size)) // out)
    return starts, ends


def _tiles(x, out):
    """X as [N, C, OH, kh, OW, kw] when OH and OW divide H and W (a view, no copy), else None.

    Then cell (p, q) is exactly rows [p*kh, (p+1)*kh) and cols [q*kw, (q+1)*kw): Paddle's
    floor/ceil bounds coincide with the even split.
    """
    (h, w), (oh, ow) = x.shape[2:], out
    if h % oh or w % ow:
        return None
    return x.reshape(x.shape[0], x.shape[1], oh, h // oh, ow, w // ow)


def _adaptive_sizes(hw, out, dtype):
    (hs, he), (ws, we) = _adaptive_bounds(hw[0], out[0]), _adaptive_bounds(hw[1], out[1])
    return np.multiply.outer(he - hs, we - ws).astype(dtype)


def _adaptive_forward(x, ptype, out):
    tiles = _tiles(x, out)
    if tiles is not None:
        # One reduction over the two within-cell axes (squeeze-excite's global pooling of a
        # conv output used to gather every tap by index: 49 ms a call).
        return tiles.max(axis=(3, 5)) if ptype == "max" else tiles.mean(axis=(3, 5))
    # Uneven cells (which may overlap by one row or column): a rectangle's max or sum is
    # the max or sum over its columns of the per-row-band reductions, so OH + OW slices
    # reduce the whole map.
    reduce = np.maximum.reduce if ptype == "max" else np.add.reduce
    (hs, he), (ws, we) = _adaptive_bounds(x.shape[2], out[0]), _adaptive_bounds(x.shape[3],
                                                                               out[1])
    bands = np.stack([reduce(x[:, :, a:b], axis=2) for a, b in zip(hs, he, strict=True)],
                     axis=2)  # [N, C, OH, W]
    result = np.stack([reduce(bands[..., a:b], axis=3) for a, b in zip(ws, we, strict=True)],
                      axis=3)
    if ptype == "avg":
        result /= _adaptive_sizes(x.shape[2:], out, result.dtype)
    return result


def _global_average(x) -> np.ndarray:
    """[N, C, 1, 1] means as one GEMV of X's [rows, H*W] (or, channels-last, [H*W, C])
    memory against ones: BLAS reads X once in its memory order where a reduction over a
    channels-last map crawls ([1, 16, 56, 56]: 72 -> 5 us), then one divide."""
    n, c, h, w = x.shape
    ones = np.ones(h * w, x.dtype)
    if not x.flags.c_contiguous and x.transpose(0, 2, 3, 1).flags.c_contiguous:
        sums = np.matmul(ones, x.transpose(0, 2, 3, 1).reshape(n, h * w, c))
    else:
        sums = np.matmul(x.reshape(n * c, h * w), ones)  # a copy only for odd strides
    sums /= x.dtype.type(h * w)
    return sums.reshape(n, c, 1, 1)


def _indicator(size: int, out: int, dtype) -> np.ndarray:
    """[out, size]: 1 where input position j lies in adaptive cell i."""
    starts, ends = _adaptive_bounds(size, out)
    j = np.arange(size)
    return ((j >= starts[:, None]) & (j < ends[:, None])).astype(dtype)


def _first_max_in_tiles(tiles, y, dy):
    """dX for max over tiling cells: dOut at each cell's first maximum (row-major)."""
    n, c, oh, kh, ow, kw = tiles.shape
    cells = tiles.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, oh, ow, kh * kw)
    first = (cells == y[..., None]).argmax(axis=-1)
    dcells = np.zeros_like(dy, shape=cells.shape)
    np.put_along_axis(dcells, first[..., None], dy[..., None], axis=-1)
    dx = dcells.reshape(n, c, oh, ow, kh, kw).transpose(0, 1, 2, 4, 3, 5)
    return dx.reshape(n, c, oh * kh, ow * kw)


def _adaptive_taps(hw, out):
    """(rows [OH], cols [OW], valid [OH, OW]) per tap of the largest window, row-major."""
    (hs, he), (ws, we) = _adaptive_bounds(hw[0], out[0]), _adaptive_bounds(hw[1], out[1])
    for a in range(int((he - hs).max())):
        for b in range(int((we - ws).max())):
            rows, cols = np.minimum(hs + a, he - 1), np.minimum(ws + b, we - 1)
            yield rows, cols, ((hs + a < he)[:, None] & (ws + b < we)[None, :])


def _adaptive_backward(x, y, dy, ptype, out):
    hw = x.shape[2:]
    if ptype == "avg":
        # dX = Ah^T (dOut / size) Aw with 0/1 cell indicators: overlapping cells add up.
        share = dy / _adaptive_sizes(hw, out, dy.dtype)
        ah, aw = _indicator(hw[0], out[0], dy.dtype), _indicator(hw[1], out[1], dy.dtype)
        return np.matmul(np.matmul(ah.T, share), aw)
    tiles = _tiles(x, out)
    if tiles is not None:
        return _first_max_in_tiles(tiles, y, dy)
    dx = np.zeros_like(dy, shape=x.shape)
    open_ = np.ones(y.shape, dtype=bool)
    for rows, cols, valid in _adaptive_taps(hw, out):
        hit = (x[:, :, rows][:, :, :, cols] == y) & open_ & valid
        open_ &= ~hit
        # Adaptive windows may overlap: np.add.at adds every contribution.
        np.add.at(dx, (slice(None), slice(None), rows[:, None], cols[None, :]), dy * hit)
    return dx


@pool2d.kernel(dtypes=FLOATS)
def pool2d_dense(attrs, x):
    xc = _to_nchw(x, attrs)
    kind, ksize, strides, pads, out = plan(attrs, xc.shape[2:])
    ptype = attrs["pooling_type"]
    if ptype == "avg" and kind in ("global", "adaptive") and tuple(out) == (1, 1):
        result = _global_average(xc)
    elif kind in ("global", "adaptive"):  # global pooling is one adaptive cell
        result = _adaptive_forward(xc, ptype, out)
    else:
        result = _window_forward(xc, ptype, ksize, strides, pads, out, attrs["exclusive"])
    return _from_nchw(result.astype(x.dtype, copy=False), attrs)


@pool2d.grad_maker
def _(g):
    return [g.grad_op("pool2d_grad", inputs={"X": g.input("X"), "Out": g.output("Out"),
                                             "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


pool2d_grad = register_op(
    "pool2d_grad",
    inputs=[In("X"), In("Out"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="avg: dOut / size over each window; max: dOut to the window's first maximum.",
)


@pool2d_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@pool2d_grad.kernel(dtypes=FLOATS)
def pool2d_grad_dense(attrs, x, y, dy):
    xc, yc, dyc = _to_nchw(x, attrs), _to_nchw(y, attrs), _to_nchw(dy, attrs)
    kind, ksize, strides, pads, out = plan(attrs, xc.shape[2:])
    ptype = attrs["pooling_type"]
    if kind in ("global", "adaptive"):
        dx = _adaptive_backward(xc, yc, dyc, ptype, out)
    else:
        dx = _window_backward(xc, yc, dyc, ptype, ksize, strides, pads, out, attrs["exclusive"])
    return _from_nchw(np.ascontiguousarray(dx), attrs)


# --- max_pool2d_with_index ---------------------------------------------------------------------

max_pool2d_with_index = register_op(
    "max_pool2d_with_index",
    inputs=[In("X", "[N, C, H, W]")],
    outputs=[Out("Out", "[N, C, oh, ow]"), Out("Mask", "int32 [N, C, oh, ow]")],
    attrs=[Attr("ksize", "ints", [], "window (adaptive: output) height and width"),
           Attr("strides", "ints", [1, 1], "window steps"),
           Attr("paddings", "ints", [0, 0], "padding of H and W"),
           Attr("global_pooling", "bool", False, "pool the whole map"),
           Attr("adaptive", "bool", False, "ksize is the output size"),
           Attr("ceil_mode", "bool", False, "round the output size up")],
    doc=__doc__,
)


def _geometry(get, h: int, w: int):
    """(kernel, strides, paddings, output size) per spatial dim."""
    k, s, p = list(get("ksize")), list(get("strides")), list(get("paddings"))
    if len(p) == 4:  # [top, bottom, left, right] with equal halves
        p = [p[0], p[2]]
    if get("global_pooling"):
        return [h, w], [1, 1], [0, 0], [1, 1]
    if get("adaptive"):
        return k, s, [0, 0], k
    out = []
    for n, kk, ss, pp in zip((h, w), k, s, p, strict=True):
        span = n + 2 * pp - kk
        out.append((span + ss - 1) // ss + 1 if get("ceil_mode") else span // ss + 1)
    return k, s, p, out


@max_pool2d_with_index.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 4, lambda: f"X must be [N, C, H, W], got {shape_str(x)}")
    ctx.enforce(len(ctx.attr("ksize")) == 2, lambda: f"ksize must hold 2 values, got "
                                             f"{list(ctx.attr('ksize'))}")
    if x[2] < 0 or x[3] < 0:
        out = [-1, -1] if not ctx.attr("adaptive") else list(ctx.attr("ksize"))
    else:
        out = _geometry(ctx.attr, x[2], x[3])[3]
        ctx.enforce(min(out) > 0, lambda: f"the pooled map would be {out} for X {shape_str(x)}")
    ctx.set_output("Out", [x[0], x[1]] + out, ctx.input_dtype("X"))
    ctx.set_output("Mask", [x[0], x[1]] + out, np.int32)


def _bins(n: int, out: int, k: int, s: int, p: int, adaptive: bool):
    """Per output position: the [start, end) of its window, clipped to the map."""
    i = np.arange(out)
    if adaptive:
        return (i * n) // out, -((-(i + 1) * n) // out)
    start = i * s - p
    return np.maximum(start, 0), np.minimum(start + k, n)


@max_pool2d_with_index.kernel(dtypes=FLOATS)
def max_pool2d_with_index_kernel(attrs, x):
    n, c, h, w = x.shape
    k, s, p, (oh, ow) = _geometry(attrs.__getitem__, h, w)
    adaptive = attrs["adaptive"] and not attrs["global_pooling"]
    h0, h1 = _bins(h, oh, k[0], s[0], p[0], adaptive)
    w0, w1 = _bins(w, ow, k[1], s[1], p[1], adaptive)
    # Every window as a masked [kh, kw] block of candidate positions: one gather.
    kh, kw = int((h1 - h0).max()), int((w1 - w0).max())
    rows = h0[:, None] + np.arange(kh)  # [oh, kh]
    cols = w0[:, None] + np.arange(kw)  # [ow, kw]
    inside = (rows < h1[:, None])[:, None, :, None] & (cols < w1[:, None])[None, :, None, :]
    r = np.minimum(rows, h - 1)[:, None, :, None]
    q = np.minimum(cols, w - 1)[None, :, None, :]
    check_temporary("the pooling windows' candidates", (n, c, oh, ow, kh * kw), x.dtype)
    flat = np.broadcast_to(r * w + q, (oh, ow, kh, kw)).reshape(oh, ow, kh * kw)
    values = x.reshape(n, c, h * w)[:, :, flat]  # [n, c, oh, ow, kh * kw]
    values = np.where(inside.reshape(oh, ow, kh * kw), values, -np.inf)
    best = values.argmax(axis=-1)
    out = np.take_along_axis(values, best[..., None], axis=-1)[..., 0].astype(x.dtype)
    mask = np.take_along_axis(np.broadcast_to(flat, values.shape), best[..., None],
                              axis=-1)[..., 0]
    return out, mask.astype(np.int32)


@max_pool2d_with_index.grad_maker
def _(g):
    return [g.grad_op("max_pool2d_with_index_grad",
                      inputs={"X": g.input("X"), "Mask": g.output("Mask"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a.name: g.attr(a.name) for a in max_pool2d_with_index.attrs})]


max_pool2d_with_index_grad = register_op(
    "max_pool2d_with_index_grad",
    inputs=[In("X", no_need_buffer=True), In("Mask"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=list(max_pool2d_with_index.attrs),
    key_inputs=["Out@GRAD"],
    doc="dX = dOut added at Mask (overlapping windows accumulate).",
)


@max_pool2d_with_index_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@max_pool2d_with_index_grad.kernel(dtypes=FLOATS)
def max_pool2d_with_index_grad_kernel(attrs, x, mask, dout):
    n, c, h, w = x.shape
    dx = np.zeros((n * c, h * w), dout.dtype)
    rows = np.repeat(np.arange(n * c), mask[0, 0].size)
    np.add.at(dx, (rows, mask.reshape(-1)), dout.reshape(-1))
    return dx.reshape(x.shape)


def window_pool(x, ptype, ksize, strides, pads, out, exclusive):
    """Pool NCHW `x` over regular windows: pads [(top, bottom), (left, right)], out (oh, ow);
    avg divides by the window's cells inside x when `exclusive` (spp uses it too)."""
    return _window_forward(x, ptype, ksize, strides, pads, out, exclusive)


def window_pool_grad(x, y, dy, ptype, ksize, strides, pads, out, exclusive):
    """The gradient of `window_pool` (max: to the first maximum of each window)."""
    return _window_backward(x, y, dy, ptype, ksize, strides, pads, out, exclusive)
