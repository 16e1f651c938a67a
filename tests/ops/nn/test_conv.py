"""conv2d, depthwise conv and conv2d_transpose (ops/nn/conv.py)."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.ops.nn import conv_math as cm
from paddle_ir.ops.nn.conv import geometry
from tests.op_test import check_grad, check_op
from tests.ops.nn.test_depthwise_math import thresholds

rng = np.random.RandomState(7)


def _pads(attrs, in_hw, k):
    """Paddle's padding rules, written out independently of ops/nn/conv_math.py."""
    s = attrs.get("strides", [1, 1])
    algo = attrs.get("padding_algorithm", "EXPLICIT")
    d = list(attrs.get("dilations", [1, 1]))
    p = list(attrs.get("paddings", [0, 0]))
    if algo == "VALID":
        return [0, 0, 0, 0], d
    if algo == "SAME":
        out = []
        for size, kk, ss in zip(in_hw, k, s, strict=True):
            o = int(np.ceil(size / ss))
            tot = max((o - 1) * ss + kk - size, 0)
            out += [tot // 2, tot - tot // 2]
        return out, [1, 1]
    if len(p) == 2:
        p = [p[0], p[0], p[1], p[1]]
    return p, d


def ref_conv(x, w, attrs):
    nhwc = attrs.get("data_format") == "NHWC"
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    n, c, h, wd = x.shape
    oc, cg, kh, kw = w.shape
    g = attrs.get("groups", 1)
    (pt, pb, pl, pr), (dh, dw) = _pads(attrs, (h, wd), (kh, kw))
    sh, sw = attrs.get("strides", [1, 1])
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, oc, oh, ow))
    per = oc // g
    for b in range(n):
        for o in range(oc):
            grp = o // per
            for p in range(oh):
                for q in range(ow):
                    patch = xp[b, grp * cg:(grp + 1) * cg,
                               p * sh:p * sh + dh * (kh - 1) + 1:dh,
                               q * sw:q * sw + dw * (kw - 1) + 1:dw]
                    out[b, o, p, q] = (patch * w[o]).sum()
    if nhwc:
        out = out.transpose(0, 2, 3, 1)
    return out.astype(x.dtype)


CONV_CASES = [
    ((2, 4, 7, 6), (6, 4, 3, 3), {}),
    ((2, 4, 7, 6), (6, 4, 3, 3), {"strides": [2, 1], "paddings": [1, 2]}),
    ((2, 4, 7, 6), (6, 2, 3, 2), {"groups": 2, "paddings": [1, 0, 2, 1], "dilations": [2, 1]}),
    ((2, 4, 7, 6), (4, 1, 3, 3), {"groups": 4, "paddings": [1, 1], "strides": [2, 2]}),
    ((2, 4, 7, 6), (8, 1, 3, 3), {"groups": 4, "paddings": [1, 1]}),  # channel multiplier 2
    ((2, 4, 7, 6), (12, 1, 3, 2), {"groups": 4, "paddings": [1, 0, 2, 1], "strides": [2, 1],
                                   "dilations": [1, 2]}),  # multiplier 3, strided, dilated
    ((2, 4, 7, 6), (5, 4, 1, 1), {}),
    ((2, 4, 7, 6), (5, 4, 1, 1), {"strides": [2, 2]}),
    ((2, 4, 7, 6), (6, 4, 3, 3), {"padding_algorithm": "SAME", "strides": [2, 2],
                                  "paddings": [9, 9]}),
    ((2, 4, 7, 6), (6, 4, 3, 3), {"padding_algorithm": "VALID", "paddings": [5, 5]}),
    ((2, 7, 6, 4), (6, 2, 3, 3), {"data_format": "NHWC", "groups": 2, "paddings": [1, 1]}),
    ((1, 4, 3, 3), (20, 4, 3, 3), {"paddings": [1, 1]}),  # fewer pixels than filters
    ((1, 4, 3, 3), (20, 4, 1, 1), {}),
]


@pytest.mark.parametrize("x_shape, w_shape, attrs", CONV_CASES)
@pytest.mark.parametrize("op_type", ["conv2d", "depthwise_conv2d"])
def test_conv2d(op_type, x_shape, w_shape, attrs):
    x = rng.randn(*x_shape).astype(np.float32)
    w = rng.randn(*w_shape).astype(np.float32)
    check_op(op_type, {"Input": x, "Filter": w}, attrs, {"Output": ref_conv(x, w, attrs)},
             atol=1e-4, rtol=1e-4, batch_unknown=True)


@pytest.mark.parametrize("x_shape, w_shape, attrs", CONV_CASES)
def test_conv2d_grad(x_shape, w_shape, attrs):
    x = rng.randn(*[min(d, 5) for d in x_shape])
    if attrs.get("data_format") == "NHWC":
        x = rng.randn(2, 5, 5, 4)
    w = rng.randn(*w_shape)
    check_grad("conv2d", {"Input": x, "Filter": w}, attrs, wrt=("Input", "Filter"),
               out_slot="Output")


def ref_conv_transpose(x, w, attrs, out_hw=None):
    nhwc = attrs.get("data_format") == "NHWC"
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    n, c, h, wd = x.shape
    _, ocg, kh, kw = w.shape
    g = attrs.get("groups", 1)
    (pt, pb, pl, pr), (dh, dw) = _pads(attrs, (h, wd), (kh, kw))
    sh, sw = attrs.get("strides", [1, 1])
    full_h = (h - 1) * sh + dh * (kh - 1) + 1 + 8
    full_w = (wd - 1) * sw + dw * (kw - 1) + 1 + 8
    full = np.zeros((n, ocg * g, full_h, full_w))
    cg = c // g
    for b in range(n):
        for ci in range(c):
            grp = ci // cg
            for i in range(h):
                for j in range(wd):
                    for a in range(kh):
                        for e in range(kw):
                            full[b, grp * ocg:(grp + 1) * ocg, i * sh + a * dh,
                                 j * sw + e * dw] += x[b, ci, i, j] * w[ci, :, a, e]
    if out_hw is None:
        extra = attrs.get("output_padding") or [0, 0]
        out_hw = ((h - 1) * sh - pt - pb + dh * (kh - 1) + 1 + extra[0],
                  (wd - 1) * sw - pl - pr + dw * (kw - 1) + 1 + extra[1])
    out = full[:, :, pt:pt + out_hw[0], pl:pl + out_hw[1]]
    if nhwc:
        out = out.transpose(0, 2, 3, 1)
    return out.astype(x.dtype)


TRANSPOSE_CASES = [
    ((2, 4, 3, 4), (4, 3, 3, 3), {}, None),
    ((2, 4, 3, 4), (4, 3, 3, 3), {"strides": [2, 2], "paddings": [1, 1]}, None),
    ((2, 4, 3, 4), (4, 2, 2, 3), {"strides": [2, 1], "paddings": [0, 1, 1, 0], "groups": 2,
                                  "dilations": [1, 2]}, None),
    ((2, 4, 3, 4), (4, 3, 3, 3), {"strides": [2, 2], "paddings": [1, 1],
                                  "output_padding": [1, 1]}, None),
    ((2, 4, 3, 4), (4, 3, 3, 3), {"strides": [2, 2], "paddings": [1, 1],
                                  "output_size": [6, 8]}, (6, 8)),
    ((2, 4, 3, 4), (4, 3, 3, 3), {"strides": [2, 2], "padding_algorithm": "SAME"}, None),
    ((2, 3, 4, 4), (4, 3, 3, 3), {"strides": [2, 2], "data_format": "NHWC"}, None),
]


@pytest.mark.parametrize("x_shape, w_shape, attrs, out_hw", TRANSPOSE_CASES)
def test_conv2d_transpose(x_shape, w_shape, attrs, out_hw):
    x = rng.randn(*x_shape).astype(np.float32)
    w = rng.randn(*w_shape).astype(np.float32)
    check_op("conv2d_transpose", {"Input": x, "Filter": w}, attrs,
             {"Output": ref_conv_transpose(x, w, attrs, out_hw)}, atol=1e-4, rtol=1e-4)
    check_grad("conv2d_transpose", {"Input": x.astype(np.float64), "Filter": w}, attrs,
               wrt=("Input", "Filter"), out_slot="Output")


@pytest.mark.parametrize("op_type, x_shape, w_shape, attrs, message", [
    ("conv2d", (2, 4, 5, 5), (6, 3, 3, 3), {},
     r"Input has 4 channels but Filter.shape=\[6, 3, 3, 3\] with groups=1 expects 3"),
    ("conv2d", (2, 4, 5, 5), (6, 2, 3, 3), {"groups": 2, "paddings": [1, 1, 1]},
     r"paddings must hold 2 or 4 values for a 2-D window, got \[1, 1, 1\]"),
    ("conv2d", (2, 4, 2, 2), (6, 4, 3, 3), {},
     r"the window \[3, 3\] \(dilations \[1, 1\]\) does not fit"),
    ("conv2d", (2, 4, 5), (6, 4, 3, 3), {}, r"Input must be 4-D"),
    ("conv2d", (2, 4, 5, 5), (6, 4, 3, 3), {"data_format": "NCDHW"},
     "data_format must be NCHW or NHWC"),
    ("conv2d", (2, 4, 5, 5), (6, 4, 3, 3), {"padding_algorithm": "FULL"},
     "padding_algorithm must be EXPLICIT, SAME or VALID"),
    ("conv2d_transpose", (2, 4, 3, 3), (4, 3, 3, 3), {"strides": [2, 2], "output_size": [9, 7]},
     r"output_size\[0\]=9 must lie in \[7, 9\)"),
    ("conv2d_transpose", (2, 4, 3, 3), (5, 3, 3, 3), {},
     r"Input has 4 channels but Filter.shape=\[5, 3, 3, 3\] expects 5"),
])
def test_conv_errors(op_type, x_shape, w_shape, attrs, message):
    with pytest.raises(pir.ProgramError, match=message):
        check_op(op_type, {"Input": np.zeros(x_shape, np.float32),
                           "Filter": np.zeros(w_shape, np.float32)}, attrs)


def test_depthwise_conv2d_transpose():
    x, f = rng.uniform(-1, 1, (1, 2, 3, 3)), rng.uniform(-1, 1, (2, 1, 2, 2))
    full = np.zeros((1, 2, 6, 6))  # stride 2, no padding: (3 - 1) * 2 + 2
    for c in range(2):
        for i in range(3):
            for j in range(3):
                full[0, c, 2 * i:2 * i + 2, 2 * j:2 * j + 2] += x[0, c, i, j] * f[c, 0]
    attrs = {"strides": [2, 2], "paddings": [0, 0], "groups": 2, "dilations": [1, 1]}
    check_op("depthwise_conv2d_transpose", {"Input": x, "Filter": f}, attrs,
             {"Output": full}, outputs={"Output": 1})


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("channels_last", [False, True])
def test_pointwise_conv_on_either_memory_layout(n, channels_last):
    """A 1x1 convolution is one product over channels whichever memory X has."""
    from paddle_ir.ops.nn.conv import conv2d_kernel
    data = rng.randn(n, 5, 7, 6).astype(np.float32)  # [N, H, W, C] or [N, C', H', W']
    x = data.transpose(0, 3, 1, 2) if channels_last else data.reshape(n, 6, 5, 7)
    w = rng.randn(4, 6, 1, 1).astype(np.float32)
    attrs = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT",
             "groups": 1, "dilations": [1, 1], "data_format": "NCHW"}
    want = np.einsum("oc,nchw->nohw", w[:, :, 0, 0].astype(np.float64), x.astype(np.float64))
    out = conv2d_kernel(attrs, x, w)
    assert out.shape == (n, 4) + x.shape[2:]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("oc", [4, 40])  # more filters than output pixels, or fewer
@pytest.mark.parametrize("channels_last", [False, True])
def test_3x3_conv_on_either_memory_layout(oc, channels_last):
    """NCHW memory (a model's input) takes an NCHW-ordered im2col, channels-last memory
    the channels-last one: both give the convolution."""
    from paddle_ir.ops.nn.conv import conv2d_kernel
    nhwc = rng.randn(2, 7, 6, 3).astype(np.float32)
    x = nhwc.transpose(0, 3, 1, 2) if channels_last else np.ascontiguousarray(
        nhwc.transpose(0, 3, 1, 2))
    w = rng.randn(oc, 3, 3, 3).astype(np.float32)
    attrs = {"strides": [2, 1], "paddings": [1, 0, 2, 1], "padding_algorithm": "EXPLICIT",
             "groups": 1, "dilations": [1, 2], "data_format": "NCHW"}
    np.testing.assert_allclose(conv2d_kernel(attrs, x, w), ref_conv(x, w, attrs),
                               rtol=1e-4, atol=1e-4)


# Block sizes (bytes) that split the im2col into one output row, a few rows, or a few
# whole images per block: the blocked path must give what the one-block path gives.
BLOCKS = [1, 400, 3000]


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("x_shape, w_shape, attrs", CONV_CASES)
def test_conv2d_in_blocks_of_output_rows(monkeypatch, block, x_shape, w_shape, attrs):
    """A large im2col is made a block of output rows at a time (core/limits.py
    working_block_bytes): same values, whatever the block."""
    from paddle_ir.core import limits
    monkeypatch.setattr(limits, "WORKING_BLOCK_BYTES", block)
    x = rng.randn(*x_shape).astype(np.float32)
    w = rng.randn(*w_shape).astype(np.float32)
    check_op("conv2d", {"Input": x, "Filter": w}, attrs, {"Output": ref_conv(x, w, attrs)},
             atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("block", [1, 3000])
@pytest.mark.parametrize("x_shape, w_shape, attrs", CONV_CASES[:6] + CONV_CASES[10:11])
def test_conv2d_grad_in_blocks_of_output_rows(monkeypatch, block, x_shape, w_shape, attrs):
    from paddle_ir.core import limits
    monkeypatch.setattr(limits, "WORKING_BLOCK_BYTES", block)
    test_conv2d_grad(x_shape, w_shape, attrs)


@pytest.mark.parametrize("block", [1, 3000])
@pytest.mark.parametrize("x_shape, w_shape, attrs, out_hw", TRANSPOSE_CASES)
def test_conv2d_transpose_in_blocks_of_input_rows(monkeypatch, block, x_shape, w_shape, attrs,
                                                  out_hw):
    from paddle_ir.core import limits
    monkeypatch.setattr(limits, "WORKING_BLOCK_BYTES", block)
    test_conv2d_transpose(x_shape, w_shape, attrs, out_hw)


@pytest.mark.parametrize("w_shape, attrs", [
    ((4, 1, 3, 3), {"groups": 4, "paddings": [1, 1], "strides": [2, 1]}),
    ((8, 1, 2, 3), {"groups": 4, "paddings": [1, 0], "dilations": [1, 2]}),  # multiplier 2
])
def test_depthwise_conv2d_grad(w_shape, attrs):
    x = rng.randn(2, 4, 5, 5)
    w = rng.randn(*w_shape)
    check_grad("depthwise_conv2d", {"Input": x, "Filter": w}, attrs, wrt=("Input", "Filter"),
               out_slot="Output")


def test_depthwise_conv2d_transpose_grad():
    x, f = rng.uniform(-1, 1, (1, 2, 3, 3)), rng.uniform(-1, 1, (2, 1, 2, 2))
    attrs = {"strides": [2, 2], "paddings": [0, 0], "groups": 2, "dilations": [1, 1]}
    check_grad("depthwise_conv2d_transpose", {"Input": x, "Filter": f}, attrs,
               wrt=("Input", "Filter"), out_slot="Output")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("memory", ["NCHW", "NHWC"])
@pytest.mark.parametrize("w_shape, attrs", [
    ((4, 1, 3, 3), {"groups": 4, "paddings": [1, 1]}),
    ((8, 1, 3, 3), {"groups": 4, "padding_algorithm": "SAME", "strides": [2, 2]}),
    ((12, 1, 3, 2), {"groups": 4, "paddings": [2, 0, 1, 1], "dilations": [2, 1]}),
    ((4, 1, 3, 3), {"groups": 4, "paddings": [0, 1, 1, 0], "strides": [2, 2]}),
])
def test_depthwise_reading_its_input_in_place(w_shape, attrs, memory, dtype):
    """conv_math.forward's depthwise convolutions, channel multipliers included, with the
    thresholds for reading the input in place lowered to reach that path (the real ones
    need 1 MiB images), from NCHW and NHWC memory, batch 2, float32 and float64."""
    nchw = rng.randn(2, 4, 9, 8).astype(dtype)
    x = nchw if memory == "NCHW" else nchw.transpose(0, 2, 3, 1).copy().transpose(0, 3, 1, 2)
    w = rng.randn(*w_shape).astype(dtype)
    full = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT",
            "dilations": [1, 1], **attrs}
    with thresholds(256, in_place=True):
        out = cm.forward(x, w, geometry(full, x.shape[2:], w.shape[2:]))
    assert out.dtype == dtype
    np.testing.assert_allclose(out, ref_conv(nchw.astype(np.float64), w.astype(np.float64),
                                             full), rtol=1e-5, atol=1e-5)
