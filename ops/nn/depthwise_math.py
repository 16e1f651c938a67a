"""Depthwise 2-D convolution (one input channel per group) over channels-last memory.

    out[n, p, q, c] = sum_{i, j} xpad[n, p*sh + i*dh, q*sw + j*dw, c] * w[c, 0, i, j]

No channel is mixed, so BLAS has nothing to batch (C products of one row each)
and im2col would copy kh*kw times the input for nothing. The sum runs instead
as one `np.einsum` over a strided view of each padded image, which multiplies
and adds in a single pass (numpy's elementwise ops would take two per tap:
a product, then its sum into the output).

What makes the pass fast is the length of its inner loop, so the view is
chosen by shape. Along a row of output pixels, channels-last input is one
contiguous run of OW*C values for every tap when the horizontal stride is 1:
the view is [OH, kh, kw, OW*C], the weights are broadcast once to
[kh, kw, OW*C], and the inner loop covers a whole output row. A horizontal
stride s > 1 breaks the run; the padded image is then stored as s column
phases ([H, s, W/s, C], phase r holding columns r, r+s, ...), in which tap j
reads phase j % s at column offset j // s: each phase is again one run, and
the filter gets zero taps up to a multiple of s (3 taps at stride 2 run as 2
phases of 2). With many channels the plain windows view [OH, OW, kh, kw, C],
whose inner loop is C long, is as fast and needs no broadcast weights; it
also serves a horizontal stride together with a horizontal dilation. Measured
one image at a time on one core (issue 24's zoo shapes, ms): C=16 at 56x56,
3x3: 0.07 against 0.58; C=32 at 112x112: 0.67 against 2.9; C=144 at 56x56:
0.88 against 1.16; C=240 at 14x14, 5x5: equal; C=576 at 7x7, 5x5: 0.16
against 0.13; stride 2, C=144 at 56x56: 0.50 against 0.47.

The padded image is built in one buffer reused across the batch (its border
stays zero), so memory stays the input's plus one image.

A large image (from `_IN_PLACE_BYTES` on) is not copied at all: the outputs
whose windows lie inside the input (the interior) read the channels-last input
in place, through the row view at a horizontal stride of 1 and through the
plain windows view otherwise, and only the thin border strips (the outputs
whose windows reach into the padding) are computed from small zero-padded
patches. Zeroing a padded buffer and copying the image into it cost more than
the strips' extra calls there; on small maps the calls cost more. Measured
one image at a time (ms): C=32 at 112x112: 0.94 against 1.77; C=144 at 56x56:
1.15 against 2.17; stride 2, C=96 at 112x112: 1.04 against 1.54 and C=144 at
56x56: 0.34 against 0.50; C=192 at 28x28: equal; 48 at 14x14: 0.058 against
0.031. At a horizontal stride the windows view's inner loop is C long, too
short below `_IN_PLACE_STRIDED_CHANNELS` (C=16 at 112x112, stride 2: 0.60
against 0.25 through the phases).
"""

from __future__ import annotations

import numpy as np

# From this many channels on, the plain windows view's inner loop (C long) is as fast
# as a whole row's; half as many suffice at a horizontal stride (whose phases add taps).
_MANY_CHANNELS = 256
# From this many bytes per input image, the interior is read in place (see the doc).
_IN_PLACE_BYTES = 1 << 20
# At a horizontal stride, reading in place needs this many channels (the inner loop's length).
_IN_PLACE_STRIDED_CHANNELS = 64


def forward(xl: np.ndarray, w: np.ndarray, pads, strides, dilations, oh: int,
            ow: int) -> np.ndarray:
    """Depthwise conv of NHWC `xl` with w [C, 1, kh, kw] -> a C-contiguous [N, OH, OW, C]."""
    n, h, wd, c = xl.shape
    kh, kw = w.shape[2:]
    (t, _), (lft, _) = pads
    (st_h, st_w), (d_h, d_w) = strides, dilations
    dtype = np.result_type(xl, w)
    out = np.empty((n, oh, ow, c), dtype=dtype)
    if n == 0 or oh <= 0 or ow <= 0 or c == 0:
        return out
    taps = np.ascontiguousarray(w[:, 0].transpose(1, 2, 0), dtype=dtype)  # [kh, kw, C]
    if h * wd * c * xl.itemsize >= _IN_PLACE_BYTES and (st_w == 1
                                                        or c >= _IN_PLACE_STRIDED_CHANNELS):
        interior = _interior(xl.shape[1:3], taps.shape[:2], pads, strides, dilations, oh, ow)
        if interior is not None:
            return _in_place(xl, taps, pads, strides, dilations, out, interior)
    if c >= _MANY_CHANNELS or (st_w > 1 and (d_w > 1 or c >= _MANY_CHANNELS // 2)):
        return _strided_windows(xl, taps, pads, strides, dilations, out)
    # phases P, taps per phase A, and the column step e between taps within a phase
    phases, per_phase, step = (1, kw, d_w) if st_w == 1 else (st_w, -(-kw // st_w), 1)
    cols = ow + (per_phase - 1) * step  # the columns of one phase that outputs read
    rows = (oh - 1) * st_h + (kh - 1) * d_h + 1  # the padded rows that outputs read
    if phases == 1:
        grid = taps[:, None]
    else:
        grid = np.zeros((kh, phases, per_phase, c), dtype=dtype)
        for j in range(kw):  # tap j lies in phase j % P, at column (j // P) * e of it
            grid[:, j % phases, j // phases] = taps[:, j]
    wide = np.empty((kh, phases, per_phase, ow, c), dtype=dtype)
    wide[...] = grid[:, :, :, None, :]
    wide = wide.reshape(kh, phases, per_phase, ow * c)

    padded = np.zeros((rows, phases, cols, c), dtype=dtype)  # the border stays zero
    fills = _phase_fills(wd, lft, phases, cols)
    in_rows = max(0, min(h, rows - t))
    sr, sp, sq, sc = padded.strides
    view = _view(padded, (oh, kh, phases, per_phase, ow * c),
                 (sr * st_h, sr * d_h, sp, sq * step, sc))
    for img in range(n):
        for phase, (k0, c0, count) in enumerate(fills):
            padded[t:t + in_rows, phase, k0:k0 + count] = \
                xl[img, :in_rows, c0:c0 + phases * (count - 1) + 1:phases]
        np.einsum("pirax,irax->px", view, wide, out=out[img].reshape(oh, ow * c))
    return out


def _phase_fills(wd: int, lft: int, phases: int, cols: int) -> list[tuple[int, int, int]]:
    """Per phase r: (first column of the phase, the input column it holds, how many) for
    the input columns x with x + lft = phases * k + r and k < cols."""
    fills = []
    for r in range(phases):
        k0 = max(0, -(-(lft - r) // phases))
        c0 = phases * k0 + r - lft
        count = max(0, min(cols - k0, -(-(wd - c0) // phases)))
        fills.append((k0, c0, count))
    return fills


def _strided_windows(xl, taps, pads, strides, dilations, out) -> np.ndarray:
    """Any stride and dilation: one einsum over the [OH, OW, kh, kw, C] windows view."""
    n, h, wd, c = xl.shape
    kh, kw = taps.shape[:2]
    (t, b), (lft, r) = pads
    (st_h, st_w), (d_h, d_w) = strides, dilations
    oh, ow = out.shape[1:3]
    padded = np.zeros((h + t + b, wd + lft + r, c), dtype=out.dtype)
    sh, sw, sc = padded.strides
    view = _view(padded, (oh, ow, kh, kw, c), (sh * st_h, sw * st_w, sh * d_h, sw * d_w, sc))
    for img in range(n):
        padded[t:t + h, lft:lft + wd] = xl[img]
        np.einsum("pqijc,ijc->pqc", view, taps, out=out[img])
    return out


def _interior(in_hw, ksize, pads, strides, dilations, oh: int, ow: int):
    """(p0, p1, q0, q1): the output rows [p0, p1) and columns [q0, q1) whose windows lie
    inside the unpadded input, or None when there are none."""
    bounds = []
    for size, k, (before, _), s, d, extent in zip(in_hw, ksize, pads, strides, dilations,
                                                  (oh, ow), strict=True):
        reach = size - 1 - (k - 1) * d + before  # the last padded row a window may start on
        bounds += [-(-before // s), min(extent, reach // s + 1) if reach >= 0 else 0]
    p0, p1, q0, q1 = bounds
    return (p0, p1, q0, q1) if p1 > p0 and q1 > q0 else None


def _in_place(xl, taps, pads, strides, dilations, out, interior) -> np.ndarray:
    """forward() reading the interior's windows straight from the input (no padded copy)
    and the border strips through small padded patches (_patch)."""
    n, oh, ow, c = out.shape
    kh, kw = taps.shape[:2]
    (t, _), (lft, _) = pads
    (st_h, st_w), (d_h, d_w) = strides, dilations
    p0, p1, q0, q1 = interior
    xs = np.ascontiguousarray(xl, dtype=out.dtype)
    item = out.itemsize
    sr, sq = xs.strides[1:3]  # one input row, one input pixel
    orow, opix = out.strides[1:3]
    if st_w == 1:
        # the row view [P, kh, kw, Q*C]: one run of Q*C values per row and tap
        wide = np.empty((kh, kw, q1 - q0, c), dtype=out.dtype)
        wide[...] = taps[:, :, None, :]
        wide = wide.reshape(kh, kw, (q1 - q0) * c)
    for img in range(n):
        first = img * xs.strides[0] + (p0 * st_h - t) * sr + (q0 * st_w - lft) * sq
        corner = img * out.strides[0] + p0 * orow + q0 * opix
        if st_w == 1:
            view = _view(xs, (p1 - p0, kh, kw, (q1 - q0) * c),
                         (sr * st_h, sr * d_h, sq * d_w, item), first)
            dest = _view(out, (p1 - p0, (q1 - q0) * c), (orow, item), corner)
            np.einsum("pijx,ijx->px", view, wide, out=dest)
        else:
            view = _view(xs, (p1 - p0, q1 - q0, kh, kw, c),
                         (sr * st_h, sq * st_w, sr * d_h, sq * d_w, item), first)
            np.einsum("pqijc,ijc->pqc", view, taps, out=out[img, p0:p1, q0:q1])
        for rows, cols in (((0, p0), (0, ow)), ((p1, oh), (0, ow)), ((p0, p1), (0, q0)),
                           ((p0, p1), (q1, ow))):
            if rows[1] > rows[0] and cols[1] > cols[0]:
                _patch(xs[img], taps, pads, strides, dilations, out[img], rows, cols)
    return out


def _patch(image, taps, pads, strides, dilations, out, rows, cols) -> None:
    """out[rows, cols] of one [H, W, C] image, from a zero-padded copy of just the input
    its windows read."""
    kh, kw = taps.shape[:2]
    (t, _), (lft, _) = pads
    (st_h, st_w), (d_h, d_w) = strides, dilations
    y0, y1 = rows[0] * st_h - t, (rows[1] - 1) * st_h - t + (kh - 1) * d_h + 1
    x0, x1 = cols[0] * st_w - lft, (cols[1] - 1) * st_w - lft + (kw - 1) * d_w + 1
    patch = np.zeros((y1 - y0, x1 - x0, image.shape[2]), dtype=out.dtype)
    top, bottom = max(y0, 0), min(y1, image.shape[0])
    left, right = max(x0, 0), min(x1, image.shape[1])
    if bottom > top and right > left:
        patch[top - y0:bottom - y0, left - x0:right - x0] = image[top:bottom, left:right]
    sh, sw, sc = patch.strides
    view = _view(patch, (rows[1] - rows[0], cols[1] - cols[0], kh, kw, image.shape[2]),
                 (sh * st_h, sw * st_w, sh * d_h, sw * d_w, sc))
    np.einsum("pqijc,ijc->pqc", view, taps, out=out[rows[0]:rows[1], cols[0]:cols[1]])


def _view(base: np.ndarray, shape, strides, offset: int = 0) -> np.ndarray:
    """A strided view of C-contiguous `base` from byte `offset`, whose extent these shapes
    and strides keep within it. np.ndarray over the buffer: as_strided's array-interface
    round trip costs more than the einsum on a 14 x 14 map."""
    return np.ndarray(shape, dtype=base.dtype, buffer=base, offset=offset, strides=strides)
