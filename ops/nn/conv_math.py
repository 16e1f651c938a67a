"""The arithmetic of 2-D convolution, as pure numpy functions over NCHW arrays.

A convolution is described by its `Geometry` (per spatial dim: stride, the two
paddings, dilation; and the group count). Three functions cover conv2d, its
gradients and conv2d_transpose (whose forward pass is conv2d's data gradient):

    forward(x, w)        out[n, o, p, q] = sum_{c, i, j} xpad[n, g*Cg + c, p*s + i*d, q*s + j*d]
                                                      * w[o, c, i, j]   (o in group g)
    backward_data(dout)  the adjoint of forward w.r.t. x
    backward_filter      the adjoint of forward w.r.t. w

Speed: the windows are a strided view of the padded input (no copy). The
forward pass works channels-last: one im2col copy lays the windows out as
[N*OH*OW, kh*kw*C] (contiguous runs of C) and one GEMM (one batched matmul
over groups) does the products; its result is returned as an NCHW view of
NHWC memory, which the elementwise ops keep, so the next convolution reads it
without a transpose. A 1x1 stride-1 unpadded convolution skips im2col: one GEMM
over channels-last memory, or W @ X[n] per image over NCHW memory.
Depthwise convolutions (one input channel per group, with or without a
channel multiplier) are one multiply-add pass over shifted views instead of C
tiny products (ops/nn/depthwise_math.py). The gradients im2col in NCHW
([N, G, Cg*kh*kw, OH*OW]) with one batched matmul. Python loops run over
filter taps, images and row blocks, never over pixels.

Memory: an im2col is kh*kw times its input (a 15x15 filter over a 64 MB input
needs 14 GB). Where it would pass `working_block_bytes()` (core/limits.py), the
forward pass and both gradients work in blocks of whole images, or of output
rows of one image, each block's im2col at most that size, so their working
memory is bounded by the inputs and outputs, not by the filter's area.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import as_strided

from paddle_ir.core.limits import check_temporary, working_block_bytes
from paddle_ir.ops.nn import depthwise_math
from paddle_ir.ops.nn.conv_bias import add_channel_bias

# With a GEMM-ready 1x1 filter and fewer pixels than filters, the product stays
# channels-last up to this many output values (MobileNet v2: -2.2% a run, v3 small
# -4.8%); ResNet-50's larger ones ([196, 1024], [49, 2048]) ran 1.3-2.9% slower a run
# that way, for all that the GEMMs alone are as fast, so they keep the transposed product.
_GEMM_READY_CHANNELS_LAST = 1 << 17


@dataclass(frozen=True)
class Geometry:
    """A 2-D convolution's strides, paddings, dilations and groups."""

    strides: tuple[int, int]
    pads: tuple[tuple[int, int], tuple[int, int]]  # (before, after) per spatial dim
    dilations: tuple[int, int]
    groups: int


def resolve_padding(in_spatial, ksize, strides, paddings, algorithm: str, dilations):
    """Paddle's UpdatePaddingAndDilation: (pads per dim as (before, after), dilations).

    paddings holds one value per spatial dim (both sides) or two (before, after).
    SAME pads so that out = ceil(in / stride) and sets dilations to 1; VALID pads
    nothing; EXPLICIT uses `paddings`. Returns a message string when invalid.
    """
    n = len(ksize)
    paddings, dilations = list(paddings), list(dilations)
    if algorithm == "SAME":
        pads = []
        for size, k, s in zip(in_spatial, ksize, strides, strict=True):
            if size < 0:
                pads.append((-1, -1))
                continue
            out = -(-size // s)
            total = max((out - 1) * s + k - size, 0)
            pads.append((total // 2, total - total // 2))
        return tuple(pads), (1,) * n
    if algorithm == "VALID":
        return ((0, 0),) * n, tuple(dilations)
    if len(paddings) == n:
        return tuple((p, p) for p in paddings), tuple(dilations)
    if len(paddings) == 2 * n:
        return tuple((paddings[2 * i], paddings[2 * i + 1]) for i in range(n)), tuple(dilations)
    return (f"paddings must hold {n} or {2 * n} values for a {n}-D window, got "
            f"{paddings}")


def out_size(size: int, k: int, s: int, pad: tuple[int, int], d: int) -> int:
    """conv's output extent along one dim (-1 when the input's is unknown)."""
    if size < 0 or pad[0] < 0:
        return -1
    return (size + pad[0] + pad[1] - (d * (k - 1) + 1)) // s + 1


def _padded(x: np.ndarray, pads) -> np.ndarray:
    (t, b), (lft, r) = pads
    if not (t or b or lft or r):
        return x
    n, c, h, w = x.shape
    xp = np.zeros((n, c, h + t + b, w + lft + r), dtype=x.dtype)
    xp[:, :, t:t + h, lft:lft + w] = x
    return xp


def windows(xp: np.ndarray, kh: int, kw: int, oh: int, ow: int, geo: Geometry) -> np.ndarray:
    """The read-only strided view [N, C, kh, kw, OH, OW] of the padded input's windows."""
    sn, sc, sh, sw = xp.strides
    (st_h, st_w), (d_h, d_w) = geo.strides, geo.dilations
    return as_strided(xp, shape=(xp.shape[0], xp.shape[1], kh, kw, oh, ow),
                      strides=(sn, sc, sh * d_h, sw * d_w, sh * st_h, sw * st_w),
                      writeable=False)


def _out_hw(x_shape, w_shape, geo: Geometry) -> tuple[int, int]:
    return (out_size(x_shape[2], w_shape[2], geo.strides[0], geo.pads[0], geo.dilations[0]),
            out_size(x_shape[3], w_shape[3], geo.strides[1], geo.pads[1], geo.dilations[1]))


def is_pointwise(w_shape, geo: Geometry) -> bool:
    return (w_shape[2:] == (1, 1) and geo.strides == (1, 1)
            and geo.pads == ((0, 0), (0, 0)))


def _cols(x: np.ndarray, w_shape, geo: Geometry, oh: int, ow: int) -> np.ndarray:
    """im2col for the gradients: [N, G, Cg*kh*kw, OH*OW], one copy of the windows."""
    n, c = x.shape[:2]
    kh, kw = w_shape[2:]
    view = windows(_padded(x, geo.pads), kh, kw, oh, ow, geo)
    return view.reshape(n, geo.groups, (c // geo.groups) * kh * kw, oh * ow)


def forward(x: np.ndarray, w: np.ndarray, geo: Geometry, bias=None) -> np.ndarray:
    """conv2d of NCHW x (plus bias[None, :, None, None] when given), as a fresh array;
    computed channels-last, returned as an NCHW view of NHWC memory.

    Channels-last makes each window's values for one tap contiguous runs of C,
    so im2col is a fast copy and the product is one [N*OH*OW, kh*kw*C] @
    [kh*kw*C, OC] GEMM. The NCHW-shaped result keeps NHWC memory, which
    elementwise ops preserve, so the next conv reads it without a transpose.
    The bias is added over the output's memory (conv_bias), or folded into a
    pointwise GEMM where that pays (_pointwise_with_bias).
    """
    out, added = _product(x, w, geo, bias)
    if bias is not None and not added:
        add_channel_bias(out, bias)
    return out


def _product(x: np.ndarray, w: np.ndarray, geo: Geometry, bias) -> tuple[np.ndarray, bool]:
    """(forward()'s convolution, whether it holds the bias already)."""
    n, c, h, wd = x.shape
    oc, cg, kh, kw = w.shape
    g = geo.groups
    oh, ow = _out_hw(x.shape, w.shape, geo)
    xl = x.transpose(0, 2, 3, 1)  # NHWC view: free when x's memory is channels-last
    pointwise = is_pointwise(w.shape, geo)
    if cg == 1 and g == c and oc % c == 0 and not pointwise:
        if oc != c:
            # A channel multiplier: output o reads input channel o // (OC / C), so the
            # input with each channel repeated is a plain depthwise input (one copy of X
            # instead of im2col's kh*kw).
            xl = np.repeat(xl, oc // c, axis=3)
        out = depthwise_math.forward(xl, w, geo.pads, geo.strides, geo.dilations, oh, ow)
        return out.transpose(0, 3, 1, 2), False
    if pointwise and g == 1 and x.flags.c_contiguous:
        # NCHW memory: Out[n] = W[OC, C] @ X[n] as [C, H*W], no im2col and no transpose
        # copy (channels-last input takes the GEMM below, also copy-free).
        out = np.matmul(w.reshape(oc, c), x.reshape(n, c, h * wd))
        return out.reshape(n, oc, h, wd), False
    m = n * oh * ow
    if not pointwise and m * kh * kw * c * x.itemsize > working_block_bytes():
        return _forward_blocked(xl, w, geo, oh, ow).transpose(0, 3, 1, 2), False
    if g == 1 and x.flags.c_contiguous and not pointwise:
        return _forward_nchw_cols(x, w, geo, oh, ow, bias)
    if pointwise:
        cols = xl.reshape(m, c)
        if g == 1 and bias is not None and _bias_folding_pays(m, c, oc):
            return _pointwise_with_bias(cols, w, bias).reshape(n, oh, ow, oc).transpose(
                0, 3, 1, 2), True
    else:
        xp = _padded_nhwc(xl, geo.pads)
        sn, sh, sw, sc = xp.strides
        (st_h, st_w), (d_h, d_w) = geo.strides, geo.dilations
        view = as_strided(xp, shape=(n, oh, ow, kh, kw, c),
                          strides=(sn, sh * st_h, sw * st_w, sh * d_h, sw * d_w, sc),
                          writeable=False)
        cols = view.reshape(m, kh * kw * c)  # im2col: one copy
    if g == 1:
        # The filter as [OC, kh*kw*C]: each filter's taps re-laid out in place (a cheap,
        # cache-friendly copy, redone every run since parameters may change in place);
        # BLAS reads its transpose without a copy. A 1x1 filter stored GEMM-ready ([C, OC]
        # memory: paddle_ir/passes/gemm_filters.py) is that right-hand side as it lies,
        # faster than the transposed read at any pixel count (49 x 576 -> 96: 51 against
        # 66 us), so it keeps channels-last output with fewer pixels than filters too, up
        # to _GEMM_READY_CHANNELS_LAST output values.
        wk = w.transpose(0, 2, 3, 1).reshape(oc, kh * kw * c)
        if m < oc and (not wk.T.flags.c_contiguous or m * oc > _GEMM_READY_CHANNELS_LAST):
            # OpenBLAS runs [M, K] @ [K, N] with M < N several times slower than the
            # product transposed (4x on ResNet's last stage): Out^T = W @ cols^T, returned
            # as an NCHW view of [OC, N, OH, OW] memory.
            return (wk @ cols.T).reshape(oc, n, oh, ow).transpose(1, 0, 2, 3), False
        out = cols @ wk.T
    else:
        ocg = oc // g
        stacks = cols.reshape(m, kh * kw, g, cg).transpose(2, 0, 1, 3).reshape(g, m, -1)
        wm = w.reshape(g, ocg, cg, kh, kw).transpose(0, 3, 4, 2, 1).reshape(g, -1, ocg)
        out = np.matmul(stacks, wm).transpose(1, 0, 2).reshape(m, oc)  # BLAS per group
    return out.reshape(n, oh, ow, oc).transpose(0, 3, 1, 2), False


def _bias_folding_pays(m: int, c: int, oc: int) -> bool:
    """Whether copying the [M, C] input and the [OC, C] filter one column wider costs less
    than a pass of the bias over the [M, OC] output (an expanding pointwise conv); never
    with fewer pixels than filters, which forward() multiplies the other way round."""
    return m >= oc and 2 * (c + 1) * (m + oc) < m * oc


def _pointwise_with_bias(cols: np.ndarray, w: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """[M, OC] = [cols, 1] @ [W, bias]^T: the bias as one more input channel of constant 1,
    so the GEMM writes the biased output in one pass (MobileNet v2's [12544, 16] -> 96:
    0.67 against 0.91 ms). A BLAS that adds the bias column last gives a separate add's
    bits (OpenBLAS does on the zoo's models); another order differs by an ulp."""
    m, c = cols.shape
    oc = w.shape[0]
    dtype = np.result_type(cols, w)
    cols_and_ones = np.empty((m, c + 1), dtype=dtype)
    cols_and_ones[:, :c] = cols
    cols_and_ones[:, c] = 1
    w_and_bias = np.empty((oc, c + 1), dtype=dtype)
    w_and_bias[:, :c] = w.reshape(oc, c)
    w_and_bias[:, c] = bias
    return cols_and_ones @ w_and_bias.T


def _forward_nchw_cols(x, w, geo, oh, ow, bias) -> tuple[np.ndarray, bool]:
    """forward() of NCHW memory (a model's input image): im2col in NCHW order; (the
    output, whether it holds the bias).

    There a tap's windows are runs of OW along each row, where the channels-last
    im2col would copy runs of C values after a transposing copy (C = 3 for RGB:
    0.56 against 0.33 ms for MobileNet's first layer). The product Out = cols^T @ W^T
    reads the columns transposed (no copy) and writes NHWC memory; with fewer pixels
    than filters, Out = W @ cols writes NCHW memory instead (see forward). A bias
    rides in the product as one more row of columns, all 1 (a contiguous row: no
    pass over the output, which is 8 times the input for a first layer of 24 filters
    at stride 2)."""
    n, c = x.shape[:2]
    oc, _, kh, kw = w.shape
    taps = c * kh * kw
    view = windows(_padded(x, geo.pads), kh, kw, oh, ow, geo)
    if oh * ow < oc:
        cols = view.reshape(n, taps, oh * ow)
        return np.matmul(w.reshape(oc, taps), cols).reshape(n, oc, oh, ow), False
    if bias is None:
        cols, wk = view.reshape(n, taps, oh * ow), w.reshape(oc, taps)
    else:
        dtype = np.result_type(x, w)
        cols = np.empty((n, taps + 1, oh * ow), dtype=dtype)
        cols[:, :taps].reshape(view.shape)[...] = view
        cols[:, taps] = 1
        wk = np.empty((oc, taps + 1), dtype=dtype)
        wk[:, :taps] = w.reshape(oc, taps)
        wk[:, taps] = bias
    out = np.matmul(cols.transpose(0, 2, 1), wk.T)
    return out.reshape(n, oh, ow, oc).transpose(0, 3, 1, 2), bias is not None


def _row_blocks(n: int, oh: int, row_bytes: int):
    """(images, rows) slices covering an [N, OH] grid of output rows, each block's im2col
    (row_bytes per output row) at most working_block_bytes(): several whole images when
    one fits, else runs of rows of one image (at least one row)."""
    limit = working_block_bytes()
    image_bytes = oh * row_bytes
    if image_bytes <= limit:
        per = max(1, limit // max(1, image_bytes))
        for i in range(0, n, per):
            yield slice(i, min(n, i + per)), slice(0, oh)
        return
    per = max(1, limit // max(1, row_bytes))
    for i in range(n):
        for r in range(0, oh, per):
            yield slice(i, i + 1), slice(r, min(oh, r + per))


def _forward_blocked(xl, w, geo, oh, ow) -> np.ndarray:
    """forward()'s im2col GEMM a block of output rows at a time: [N, OH, OW, OC] memory."""
    n, _, _, c = xl.shape
    oc, cg, kh, kw = w.shape
    g = geo.groups
    taps = kh * kw * c
    xp = _padded_nhwc(xl, geo.pads)
    sn, sh, sw, sc = xp.strides
    (st_h, st_w), (d_h, d_w) = geo.strides, geo.dilations
    view = as_strided(xp, shape=(n, oh, ow, kh, kw, c),
                      strides=(sn, sh * st_h, sw * st_w, sh * d_h, sw * d_w, sc),
                      writeable=False)
    out = np.empty((n, oh, ow, oc), dtype=np.result_type(xl, w))
    if g == 1:
        wk = w.transpose(0, 2, 3, 1).reshape(oc, taps).T
    else:
        wm = w.reshape(g, oc // g, cg, kh, kw).transpose(0, 3, 4, 2, 1).reshape(g, -1, oc // g)
    for images, rows in _row_blocks(n, oh, ow * taps * xl.itemsize):
        block = view[images, rows]
        m = block.shape[0] * block.shape[1] * ow
        check_temporary("the convolution's im2col of one block of output rows", (m, taps),
                        xl.dtype)
        cols = block.reshape(m, taps)  # the block's im2col: one copy
        dest = out[images, rows].reshape(m, oc)  # contiguous: whole images, or one image's rows
        if g == 1:
            np.matmul(cols, wk, out=dest)
        else:
            stacks = cols.reshape(m, kh * kw, g, cg).transpose(2, 0, 1, 3).reshape(g, m, -1)
            dest[...] = np.matmul(stacks, wm).transpose(1, 0, 2).reshape(m, oc)
    return out


def _padded_nhwc(xl: np.ndarray, pads) -> np.ndarray:
    """x (an NHWC view) zero-padded, as a C-contiguous NHWC array."""
    (t, b), (lft, r) = pads
    n, h, w, c = xl.shape
    if not (t or b or lft or r):
        return np.ascontiguousarray(xl)
    xp = np.zeros((n, h + t + b, w + lft + r, c), dtype=xl.dtype)
    xp[:, t:t + h, lft:lft + w] = xl
    return xp


def backward_data(dout: np.ndarray, w: np.ndarray, x_shape, geo: Geometry) -> np.ndarray:
    """d loss / d x for forward(x, w) given d loss / d out: col2im of W^T @ dOut."""
    n, c, h, wd = x_shape
    oc, cg, kh, kw = w.shape
    g = geo.groups
    oh, ow = dout.shape[2:]
    if is_pointwise(w.shape, geo):
        dcols = np.matmul(w.reshape(g, oc // g, cg).transpose(0, 2, 1),
                          dout.reshape(n, g, oc // g, oh * ow))
        return dcols.reshape(x_shape)
    (t, b), (lft, r) = geo.pads
    dxp = np.zeros((n, c, h + t + b, wd + lft + r), dtype=dout.dtype)
    (st_h, st_w), (d_h, d_w) = geo.strides, geo.dilations
    if cg == 1 and g == c and oc == c:  # depthwise: each tap is dOut scaled per channel
        for i in range(kh):
            for j in range(kw):
                dxp[:, :, i * d_h:i * d_h + st_h * (oh - 1) + 1:st_h,
                    j * d_w:j * d_w + st_w * (ow - 1) + 1:st_w] += dout * w[:, 0, i, j][:, None,
                                                                                      None]
        return dxp[:, :, t:t + h, lft:lft + wd]
    wm = w.reshape(g, oc // g, cg * kh * kw).transpose(0, 2, 1)
    # dcols = W^T @ dOut is an im2col-sized array: made a block of output rows at a time.
    for images, rows in _row_blocks(n, oh, ow * c * kh * kw * dout.itemsize):
        d = dout[images, :, rows]
        nb, rb = d.shape[0], d.shape[2]
        check_temporary("the convolution's data-gradient columns of one block of output rows",
                        (nb, c * kh * kw, rb * ow), dout.dtype)
        dcols = np.matmul(wm, d.reshape(nb, g, oc // g, rb * ow)).reshape(nb, c, kh, kw, rb, ow)
        top = rows.start * st_h
        # The windows overlap: add tap by tap into strided slices of dxp.
        for i in range(kh):
            for j in range(kw):
                dxp[images, :, top + i * d_h:top + i * d_h + st_h * (rb - 1) + 1:st_h,
                    j * d_w:j * d_w + st_w * (ow - 1) + 1:st_w] += dcols[:, :, i, j]
    return dxp[:, :, t:t + h, lft:lft + wd]


def backward_filter(x: np.ndarray, dout: np.ndarray, w_shape, geo: Geometry) -> np.ndarray:
    """d loss / d w for forward(x, w) given d loss / d out."""
    n, c = x.shape[:2]
    oc, cg, kh, kw = w_shape
    g = geo.groups
    oh, ow = dout.shape[2:]
    if cg == 1 and g == c and oc == c and not is_pointwise(w_shape, geo):
        view = windows(_padded(x, geo.pads), kh, kw, oh, ow, geo)
        # einsum may lay the windows out whole before its product.
        check_temporary("the depthwise convolution's windows", view.shape, x.dtype)
        dw = np.einsum("nchw,ncijhw->cij", dout, view, optimize=True)
        return dw.reshape(w_shape).astype(dout.dtype, copy=False)
    if is_pointwise(w_shape, geo):
        cols = x.reshape(n, g, cg, oh * ow)
    elif n * c * kh * kw * oh * ow * x.itemsize > working_block_bytes():
        return _backward_filter_blocked(x, dout, w_shape, geo)
    else:
        cols = _cols(x, w_shape, geo, oh, ow)
    d = dout.reshape(n, g, oc // g, oh * ow)
    dw = np.matmul(d, cols.transpose(0, 1, 3, 2)).sum(axis=0)
    return dw.reshape(w_shape)


def _backward_filter_blocked(x, dout, w_shape, geo) -> np.ndarray:
    """backward_filter's im2col product summed a block of output rows at a time."""
    n, c = x.shape[:2]
    oc, cg, kh, kw = w_shape
    g = geo.groups
    oh, ow = dout.shape[2:]
    view = windows(_padded(x, geo.pads), kh, kw, oh, ow, geo)  # [N, C, kh, kw, OH, OW]
    dw = np.zeros((g, oc // g, cg * kh * kw), dtype=np.result_type(x, dout))
    for images, rows in _row_blocks(n, oh, ow * c * kh * kw * x.itemsize):
        block = view[images, :, :, :, rows]
        nb, rb = block.shape[0], block.shape[4]
        check_temporary("the convolution's im2col of one block of output rows",
                        (nb, c * kh * kw, rb * ow), x.dtype)
        cols = block.reshape(nb, g, cg * kh * kw, rb * ow)  # the block's im2col: one copy
        d = dout[images, :, rows].reshape(nb, g, oc // g, rb * ow)
        dw += np.matmul(d, cols.transpose(0, 1, 3, 2)).sum(axis=0)
    return dw.reshape(w_shape)


def transpose_out_size(size: int, k: int, s: int, pad: tuple[int, int], d: int,
                       extra: int = 0) -> int:
    """conv2d_transpose's output extent: (in - 1) * s - pads + d * (k - 1) + 1 + extra."""
    if size < 0 or pad[0] < 0:
        return -1
    return (size - 1) * s - pad[0] - pad[1] + d * (k - 1) + 1 + extra

