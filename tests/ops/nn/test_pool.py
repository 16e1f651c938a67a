"""pool2d and max_pool2d_with_index (ops/nn/pool.py)."""

import math

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import ProgramError
from paddle_ir.ops.registry import get_op_def
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(9)


def ref_pool(x, attrs):
    nhwc = attrs.get("data_format") == "NHWC"
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    n, c, h, w = x.shape
    ptype = attrs.get("pooling_type", "max")
    if attrs.get("global_pooling"):
        red = x.max(axis=(2, 3), keepdims=True) if ptype == "max" else x.mean(
            axis=(2, 3), keepdims=True)
        return red.transpose(0, 2, 3, 1) if nhwc else red
    kh, kw = attrs["ksize"]
    if attrs.get("adaptive"):
        out = np.zeros((n, c, kh, kw))
        for p in range(kh):
            for q in range(kw):
                h0, h1 = (p * h) // kh, math.ceil((p + 1) * h / kh)
                w0, w1 = (q * w) // kw, math.ceil((q + 1) * w / kw)
                win = x[:, :, h0:h1, w0:w1]
                out[:, :, p, q] = win.max(axis=(2, 3)) if ptype == "max" else win.mean(
                    axis=(2, 3))
        return (out.transpose(0, 2, 3, 1) if nhwc else out).astype(x.dtype)
    sh, sw = attrs.get("strides", [1, 1])
    pads = list(attrs.get("paddings", [0, 0]))
    if attrs.get("padding_algorithm") == "SAME":
        pads = []
        for size, k, s in ((h, kh, sh), (w, kw, sw)):
            tot = max((math.ceil(size / s) - 1) * s + k - size, 0)
            pads += [tot // 2, tot - tot // 2]
    elif attrs.get("padding_algorithm") == "VALID":
        pads = [0, 0, 0, 0]
    if len(pads) == 2:
        pads = [pads[0], pads[0], pads[1], pads[1]]
    pt, pb, pl, pr = pads
    ceil = attrs.get("ceil_mode", False)
    oh = (h + pt + pb - kh + (sh - 1 if ceil else 0)) // sh + 1
    ow = (w + pl + pr - kw + (sw - 1 if ceil else 0)) // sw + 1
    out = np.zeros((n, c, oh, ow))
    for p in range(oh):
        for q in range(ow):
            h0, w0 = p * sh - pt, q * sw - pl
            h1, w1 = min(h0 + kh, h), min(w0 + kw, w)
            h0, w0 = max(h0, 0), max(w0, 0)
            win = x[:, :, h0:h1, w0:w1]
            if ptype == "max":
                out[:, :, p, q] = win.max(axis=(2, 3))
            else:
                size = win.shape[2] * win.shape[3] if attrs.get("exclusive", True) else kh * kw
                out[:, :, p, q] = win.sum(axis=(2, 3)) / size
    if nhwc:
        out = out.transpose(0, 2, 3, 1)
    return out.astype(x.dtype)


CASES = [
    {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2]},
    {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
    {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
    {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1],
     "exclusive": False},
    {"pooling_type": "avg", "ksize": [3, 2], "strides": [2, 2], "paddings": [0, 1, 1, 0],
     "ceil_mode": True},
    {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2], "ceil_mode": True},
    {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2], "padding_algorithm": "SAME",
     "paddings": [7, 7]},
    {"pooling_type": "avg", "ksize": [2, 2], "strides": [1, 1], "padding_algorithm": "VALID",
     "paddings": [3, 3]},
    {"pooling_type": "avg", "ksize": [1, 1], "global_pooling": True},
    {"pooling_type": "max", "ksize": [1, 1], "global_pooling": True},
    {"pooling_type": "avg", "ksize": [3, 2], "adaptive": True},
    {"pooling_type": "max", "ksize": [3, 4], "adaptive": True},
    # cells that tile X (5 x 6): the reshape-and-reduce path
    {"pooling_type": "avg", "ksize": [1, 1], "adaptive": True},
    {"pooling_type": "max", "ksize": [1, 1], "adaptive": True},
    {"pooling_type": "avg", "ksize": [5, 3], "adaptive": True},
    {"pooling_type": "max", "ksize": [5, 2], "adaptive": True},
    # uneven cells that overlap (5 into 4, 6 into 4)
    {"pooling_type": "avg", "ksize": [4, 4], "adaptive": True},
    {"pooling_type": "max", "ksize": [4, 4], "adaptive": True},
    {"pooling_type": "avg", "ksize": [2, 3], "adaptive": True, "data_format": "NHWC"},
    {"pooling_type": "avg", "ksize": [2, 2], "strides": [2, 2], "data_format": "NHWC"},
]


@pytest.mark.parametrize("attrs", CASES)
def test_pool2d(attrs):
    shape = (2, 5, 6, 3) if attrs.get("data_format") == "NHWC" else (2, 3, 5, 6)
    x = rng.randn(*shape).astype(np.float32)
    check_op("pool2d", {"X": x}, attrs, {"Out": ref_pool(x, attrs)}, atol=1e-5,
             batch_unknown=True)
    check_grad("pool2d", {"X": rng.permutation(180).reshape(shape) / 7.0}, attrs)


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = np.array([[[[1.0, 3.0], [3.0, 2.0]]]])
    attrs = {"pooling_type": "max", "ksize": [2, 2]}
    check_op("pool2d", {"X": x}, attrs, {"Out": np.array([[[[3.0]]]])})
    check_op("pool2d_grad", {"X": x, "Out": np.array([[[[3.0]]]]),
                             "Out@GRAD": np.array([[[[5.0]]]])}, attrs,
             {"X@GRAD": np.array([[[[0.0, 5.0], [0.0, 0.0]]]])}, outputs={"X@GRAD": 1})


@pytest.mark.parametrize("attrs", [
    {"pooling_type": "max", "ksize": [1, 1], "adaptive": True},
    {"pooling_type": "max", "ksize": [1, 1], "global_pooling": True},
])
def test_global_and_adaptive_max_gradient_goes_to_the_first_maximum(attrs):
    x = np.array([[[[1.0, 3.0], [3.0, 2.0]]]])
    check_op("pool2d_grad", {"X": x, "Out": np.array([[[[3.0]]]]),
                             "Out@GRAD": np.array([[[[5.0]]]])}, attrs,
             {"X@GRAD": np.array([[[[0.0, 5.0], [0.0, 0.0]]]])}, outputs={"X@GRAD": 1})


@pytest.mark.parametrize("ksize", [[1, 1], [2, 3], [4, 5], [3, 3]])
@pytest.mark.parametrize("ptype", ["avg", "max"])
def test_adaptive_pool_of_channels_last_memory(ksize, ptype):
    """A conv's output is an NCHW view of NHWC memory: the kernel reads it as it is."""
    from paddle_ir.ops.nn.pool import pool2d_dense, pool2d_grad_dense
    nhwc = rng.randn(2, 8, 9, 6).astype(np.float32)
    x = nhwc.transpose(0, 3, 1, 2)  # [2, 6, 8, 9], not C-contiguous
    attrs = {a.name: a.default for a in get_op_def("pool2d").attrs}
    attrs.update(pooling_type=ptype, ksize=ksize, adaptive=True)
    out = pool2d_dense(attrs, x)
    np.testing.assert_allclose(out, ref_pool(np.ascontiguousarray(x), attrs), rtol=1e-6,
                               atol=1e-6)
    dy = rng.randn(*out.shape).astype(np.float32)
    dx = pool2d_grad_dense(attrs, x, out, dy)
    # dX against numpy written here: each cell's dOut over its window (avg: / size;
    # max: at the window's first maximum, row-major).
    want = np.zeros(x.shape, np.float32)
    for p in range(ksize[0]):
        for q in range(ksize[1]):
            h0, h1 = (p * 8) // ksize[0], math.ceil((p + 1) * 8 / ksize[0])
            w0, w1 = (q * 9) // ksize[1], math.ceil((q + 1) * 9 / ksize[1])
            win = x[:, :, h0:h1, w0:w1]
            if ptype == "avg":
                want[:, :, h0:h1, w0:w1] += dy[:, :, p:p + 1, q:q + 1] / win[0, 0].size
                continue
            for b in range(2):
                for ch in range(6):
                    r, s = np.unravel_index(win[b, ch].argmax(), win[b, ch].shape)
                    want[b, ch, h0 + r, w0 + s] += dy[b, ch, p, q]
    np.testing.assert_allclose(dx, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("attrs", [a for a in CASES if a.get("data_format") != "NHWC"
                                   and (a["pooling_type"] == "max" or a.get("global_pooling"))]
                         + [{"pooling_type": "max", "ksize": [3, 3], "strides": [1, 1],
                             "paddings": [1, 1]},
                            {"pooling_type": "max", "ksize": [3, 2], "strides": [1, 2],
                             "paddings": [1, 1, 1, 0], "ceil_mode": True}])
@pytest.mark.parametrize("channels_last", [False, True])
def test_max_and_global_pool_of_either_memory_order(attrs, channels_last):
    """Max windows (taps clipped to the input, no padded copy) and global averages (a
    GEMV in X's memory order), on NCHW memory and on a conv's NCHW view of NHWC memory:
    max pooling gives the reference's bits, averages its values to float rounding."""
    from paddle_ir.ops.nn.pool import pool2d_dense
    nhwc = rng.randn(2, 11, 9, 5).astype(np.float32)
    x = nhwc.transpose(0, 3, 1, 2) if channels_last else np.ascontiguousarray(
        nhwc.transpose(0, 3, 1, 2))
    full = {a.name: a.default for a in get_op_def("pool2d").attrs}
    full.update(attrs)
    out = pool2d_dense(full, x)
    want = ref_pool(np.ascontiguousarray(x), full)
    if attrs["pooling_type"] == "max":
        np.testing.assert_array_equal(out, want)
    else:
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)


def test_max_window_partly_or_wholly_in_the_padding():
    """A window over padding alone is -inf (as over a -inf padded copy); one partly in
    it is the max of the real cells."""
    from paddle_ir.ops.nn.pool import pool2d_dense
    full = {a.name: a.default for a in get_op_def("pool2d").attrs}
    full.update(pooling_type="max", ksize=[2, 2], strides=[3, 3], paddings=[2, 2])
    x = np.arange(1.0, 10.0).reshape(1, 1, 3, 3)
    out = pool2d_dense(full, x)
    # rows/cols of the windows: [-2, -1] (padding only) and [1, 2]
    np.testing.assert_array_equal(out[0, 0], [[-np.inf, -np.inf], [-np.inf, 9.0]])


@pytest.mark.parametrize("attrs, message", [
    ({"pooling_type": "sum", "ksize": [2, 2]}, "pooling_type must be max or avg, got 'sum'"),
    ({"pooling_type": "max", "ksize": [7, 7]}, r"the window \[7, 7\] does not fit X's spatial "
                                               r"dims \[5, 6\]"),
    ({"pooling_type": "max", "ksize": [2, 2], "paddings": [1, 1, 1]},
     r"paddings must hold 2 or 4 values"),
    ({"pooling_type": "max", "ksize": [2]}, r"ksize must hold two positive values, got \[2\]"),
])
def test_pool_errors(attrs, message):
    with pytest.raises(pir.ProgramError, match=message):
        check_op("pool2d", {"X": np.zeros((2, 3, 5, 6), np.float32)}, attrs)


def _pool_reference(x, k, s, p, ceil, adaptive):
    n, c, h, w = x.shape
    if adaptive:
        oh, ow = k
        hb = [(i * h // oh, -(-(i + 1) * h // oh)) for i in range(oh)]
        wb = [(j * w // ow, -(-(j + 1) * w // ow)) for j in range(ow)]
    else:
        size = [(d + 2 * pp - kk + (ss - 1 if ceil else 0)) // ss + 1
                for d, kk, ss, pp in zip((h, w), k, s, p, strict=True)]
        hb = [(max(i * s[0] - p[0], 0), min(i * s[0] - p[0] + k[0], h)) for i in range(size[0])]
        wb = [(max(j * s[1] - p[1], 0), min(j * s[1] - p[1] + k[1], w)) for j in range(size[1])]
    out = np.zeros((n, c, len(hb), len(wb)))
    mask = np.zeros(out.shape, np.int32)
    for a in range(n):
        for b in range(c):
            for i, (r0, r1) in enumerate(hb):
                for j, (c0, c1) in enumerate(wb):
                    best, where = -math.inf, 0
                    for r in range(r0, r1):
                        for q in range(c0, c1):
                            if x[a, b, r, q] > best:
                                best, where = x[a, b, r, q], r * w + q
                    out[a, b, i, j], mask[a, b, i, j] = best, where
    return out, mask


@pytest.mark.parametrize("k,s,p,ceil,adaptive", [
    ([3, 2], [2, 2], [1, 0], False, False), ([3, 3], [2, 3], [1, 1], True, False),
    ([3, 4], [1, 1], [0, 0], False, True)])
def test_max_pool2d_with_index(k, s, p, ceil, adaptive):
    x = rng.uniform(-1, 1, (2, 3, 7, 9))
    attrs = {"ksize": k, "strides": s, "paddings": p, "ceil_mode": ceil, "adaptive": adaptive}
    out, mask = _pool_reference(x, k, s, p, ceil, adaptive)
    check_op("max_pool2d_with_index", {"X": x}, attrs, {"Out": out, "Mask": mask})
    check_grad("max_pool2d_with_index", {"X": x}, attrs)


def test_max_pool2d_with_index_global_and_errors():
    x = rng.uniform(-1, 1, (1, 2, 3, 4))
    flat = x.reshape(1, 2, 12)
    check_op("max_pool2d_with_index", {"X": x}, {"ksize": [1, 1], "global_pooling": True},
             {"Out": flat.max(-1)[..., None, None],
              "Mask": flat.argmax(-1).astype(np.int32)[..., None, None]})
    with pytest.raises(ProgramError, match="X must be \\[N, C, H, W\\]"):
        check_op("max_pool2d_with_index", {"X": x[0]}, {"ksize": [2, 2]})
    with pytest.raises(ProgramError, match="the pooled map would be"):
        check_op("max_pool2d_with_index", {"X": x}, {"ksize": [5, 5], "strides": [1, 1]})
