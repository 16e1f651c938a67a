"""The depthwise convolution's one-pass forward (ops/nn/depthwise_math.py) on every geometry.

Its paths (stride 1 along W: one run per row; stride > 1: column phases with zero taps;
many channels, or stride and dilation along W together: the plain windows view; large
images: the interior read in place and the border strips from padded patches) are
checked against a direct loop over output pixels, on odd sizes where phases hold unequal
column counts; the thresholds that pick the plain view and the in-place reading are
lowered to reach them.
"""

from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paddle_ir.ops.nn import depthwise_math


def direct(x, w, pads, strides, dilations):
    """out[n, p, q, c] = sum_ij xpad[n, p*sh + i*dh, q*sw + j*dw, c] * w[c, 0, i, j], in float64."""
    n, h, wd, c = x.shape
    kh, kw = w.shape[2:]
    (t, b), (lft, r) = pads
    (sh, sw), (dh, dw) = strides, dilations
    xp = np.zeros((n, h + t + b, wd + lft + r, c))
    xp[:, t:t + h, lft:lft + wd] = x
    oh = (h + t + b - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + lft + r - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, oh, ow, c))
    for p in range(oh):
        for q in range(ow):
            for i in range(kh):
                for j in range(kw):
                    out[:, p, q] += xp[:, p * sh + i * dh, q * sw + j * dw] * w[:, 0, i, j]
    return out


@contextmanager
def thresholds(many: int, in_place: bool):
    """Lower the channel count that picks the plain windows view to `many`, and with
    `in_place` the image size and channel count from which the interior is read in place
    to nothing, so that small cases reach every path."""
    names = ("_MANY_CHANNELS", "_IN_PLACE_BYTES", "_IN_PLACE_STRIDED_CHANNELS")
    saved = [getattr(depthwise_math, name) for name in names]
    lowered = (many, 0, 1) if in_place else (many, *saved[1:])
    for name, value in zip(names, lowered, strict=True):
        setattr(depthwise_math, name, value)
    try:
        yield
    finally:
        for name, value in zip(names, saved, strict=True):
            setattr(depthwise_math, name, value)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 2), c=st.integers(1, 5), h=st.integers(1, 9), wd=st.integers(1, 9),
       kh=st.integers(1, 4), kw=st.integers(1, 5), sh=st.integers(1, 3), sw=st.integers(1, 3),
       dh=st.integers(1, 2), dw=st.integers(1, 3), pads=st.lists(st.integers(0, 3), min_size=4,
                                                                   max_size=4),
       many=st.sampled_from([1, 4, 256]), in_place=st.booleans(), seed=st.integers(0, 2**16))
def test_forward_matches_a_direct_loop(n, c, h, wd, kh, kw, sh, sw, dh, dw, pads, many,
                                       in_place, seed):
    t, b, lft, r = pads
    oh = (h + t + b - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + lft + r - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        return
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, h, wd, c)).astype(np.float32)
    w = rng.standard_normal((c, 1, kh, kw)).astype(np.float32)
    geometry = ((t, b), (lft, r)), (sh, sw), (dh, dw)
    with thresholds(many, in_place):
        out = depthwise_math.forward(x, w, *geometry, oh, ow)
    assert out.shape == (n, oh, ow, c) and out.dtype == np.float32
    assert out.flags.c_contiguous
    np.testing.assert_allclose(out, direct(x, w, *geometry), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("strides, dilations", [((1, 1), (1, 1)), ((2, 2), (1, 1)),
                                                ((1, 3), (2, 1)), ((2, 2), (1, 2))])
def test_forward_reads_channels_last_views_and_keeps_float64(strides, dilations, in_place):
    """An NCHW array's NHWC view (non-contiguous input) gives the same as its copy."""
    rng = np.random.default_rng(3)
    nchw = rng.standard_normal((2, 6, 11, 10))
    x = nchw.transpose(0, 2, 3, 1)
    w = rng.standard_normal((6, 1, 3, 3))
    pads = ((1, 1), (1, 2))
    want = direct(x, w, pads, strides, dilations)
    with thresholds(depthwise_math._MANY_CHANNELS, in_place):
        out = depthwise_math.forward(x, w, pads, strides, dilations, *want.shape[1:3])
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("c, strides, dilations, pads", [
    (64, (1, 1), (1, 1), ((1, 1), (1, 1))),
    (64, (2, 2), (1, 1), ((0, 1), (1, 0))),  # SAME at stride 2: the padding after only
    (96, (1, 2), (2, 1), ((2, 0), (3, 1))),
    (40, (1, 1), (1, 2), ((2, 2), (2, 2))),
    (40, (2, 2), (1, 1), ((1, 1), (1, 1))),  # too few channels to read in place at stride 2
])
def test_large_images_at_the_real_thresholds(c, strides, dilations, pads):
    """Images past _IN_PLACE_BYTES (read in place, border strips apart), batch 2."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 81, 90, c)).astype(np.float32)
    assert x[0].nbytes >= depthwise_math._IN_PLACE_BYTES
    w = rng.standard_normal((c, 1, 3, 5)).astype(np.float32)
    want = direct(x, w, pads, strides, dilations)
    out = depthwise_math.forward(x, w, pads, strides, dilations, *want.shape[1:3])
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)
