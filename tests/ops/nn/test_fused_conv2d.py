"""fused_conv2d (ops/nn/fused_conv2d.py): conv2d + bias + residual + activation in one op."""

import numpy as np
import pytest

from paddle_ir.core.errors import ShapeInferenceError
from paddle_ir.ops.nn import fused_conv2d
from tests.op_test import check_op
from tests.ops.nn.test_conv import ref_conv
from tests.ops.nn.test_conv_bias import in_memory_order

rng = np.random.RandomState(11)

# The activations' formulas, written out here in float64 (not the kernels' code).
REFS = {
    "": lambda v, a, b: v,
    "relu": lambda v, a, b: np.maximum(v, 0),
    "relu6": lambda v, a, b: np.minimum(np.maximum(v, 0), b),
    "leaky_relu": lambda v, a, b: np.where(v > 0, v, a * v),
    "hard_sigmoid": lambda v, a, b: np.minimum(np.maximum(a * v + b, 0), 1),
    "hard_swish": lambda v, a, b: v * np.minimum(np.maximum(v + 3, 0), 6) / 6,
}
CASES = [
    ((2, 4, 7, 6), (6, 4, 3, 3), {"paddings": [1, 1]}),
    ((2, 4, 7, 6), (4, 1, 3, 3), {"groups": 4, "paddings": [1, 1], "strides": [2, 2]}),
    ((2, 4, 7, 6), (8, 1, 5, 5), {"groups": 4, "paddings": [2, 2]}),  # channel multiplier
    ((2, 4, 7, 6), (5, 4, 1, 1), {}),
    ((1, 4, 3, 3), (20, 4, 1, 1), {}),  # fewer pixels than filters
    ((1, 4, 3, 3), (20, 4, 3, 3), {"paddings": [1, 1]}),  # the same, 3x3 (bias added after)
    ((2, 3, 9, 8), (5, 3, 3, 3), {"paddings": [0, 1, 1, 0], "strides": [2, 2]}),
    ((2, 4, 8, 7), (8, 1, 3, 3), {"groups": 4, "padding_algorithm": "SAME", "strides": [2, 2]}),
    ((2, 6, 1, 1), (5, 6, 1, 1), {}),  # a 1x1 map (squeeze-excite): one matrix-vector product
]


@pytest.mark.parametrize("act, alpha, beta", [("", 0, 0), ("relu", 0, 0), ("relu6", 0, 2.5),
                                              ("leaky_relu", 0.3, 0),
                                              ("hard_sigmoid", 0.3, 0.4),
                                              ("hard_swish", 0, 0)])
@pytest.mark.parametrize("x_shape, w_shape, attrs", CASES)
def test_fused_conv2d_against_numpy(x_shape, w_shape, attrs, act, alpha, beta):
    x = rng.randn(*x_shape).astype(np.float32) * 2
    w = rng.randn(*w_shape).astype(np.float32)
    conv = ref_conv(x.astype(np.float64), w.astype(np.float64), attrs)
    bias = rng.randn(w_shape[0]).astype(np.float32)
    residual = rng.randn(*conv.shape).astype(np.float32)
    want = REFS[act](conv + bias[None, :, None, None] + residual, alpha, beta)
    check_op("fused_conv2d", {"Input": x, "Filter": w, "Bias": bias, "ResidualData": residual},
             {**attrs, "fuse_activation": act, "fuse_alpha": alpha, "fuse_beta": beta},
             {"Output": want.astype(np.float32)}, atol=1e-4, rtol=1e-4, batch_unknown=True)


def test_bias_and_residual_are_optional():
    x = rng.randn(1, 3, 5, 5).astype(np.float32)
    w = rng.randn(2, 3, 3, 3).astype(np.float32)
    check_op("fused_conv2d", {"Input": x, "Filter": w}, {"fuse_activation": "relu"},
             {"Output": np.maximum(ref_conv(x.astype(np.float64), w.astype(np.float64), {}),
                                   0).astype(np.float32)}, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("inputs, attrs, message", [
    ({"Bias": np.zeros(3, np.float32)}, {}, "Bias must be [2]"),
    ({"ResidualData": np.zeros((1, 2, 2, 2), np.float32)}, {},
     "ResidualData must have Output's shape"),
    ({}, {"fuse_activation": "gelu"}, "fuse_activation must be one of"),
    ({}, {"data_format": "NHWC"}, "fused_conv2d takes NCHW input"),
])
def test_bad_slots_and_attributes_are_named(inputs, attrs, message):
    x = np.zeros((1, 3, 5, 5), np.float32)
    w = np.zeros((2, 3, 3, 3), np.float32)
    with pytest.raises(ShapeInferenceError, match=message.replace("[", r"\[")):
        check_op("fused_conv2d", {"Input": x, "Filter": w, **inputs}, attrs,
                 {"Output": np.zeros((1, 2, 3, 3), np.float32)})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("act", ["relu6", "hard_swish"])
@pytest.mark.parametrize("memory", ["NHWC", "NCHW"])
@pytest.mark.parametrize("x_shape, oc", [((2, 16, 40, 36), 96), ((1, 64, 3, 3), 200),
                                         ((2, 96, 9, 9), 24)])
def test_large_pointwise_outputs_in_each_memory_layout(memory, x_shape, oc, act, dtype):
    """Pointwise convolutions in each layout conv_math.forward returns: NHWC-memory input
    gives NHWC memory (the first case expands 16 -> 96 channels: the bias folded into the
    GEMM; the last one narrows: the bias added after), NCHW memory gives NCHW, fewer pixels
    than filters gives [OC, N, H, W]."""
    x = in_memory_order(rng.randn(*x_shape).astype(dtype), memory)
    w = rng.randn(oc, x_shape[1], 1, 1).astype(dtype)
    bias = rng.randn(oc).astype(dtype)
    attrs = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT",
             "groups": 1, "dilations": [1, 1], "data_format": "NCHW",
             "fuse_activation": act, "fuse_alpha": 0.0, "fuse_beta": 6.0}
    out = fused_conv2d.fused_conv2d_kernel(attrs, x, w, bias, None)
    conv = np.einsum("nchw,oc->nohw", x.astype(np.float64), w[:, :, 0, 0].astype(np.float64))
    want = REFS[act](conv + bias[None, :, None, None], 0.0, 6.0)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("oc", [8, 200])
@pytest.mark.parametrize("memory", ["NCHW", "NHWC"])
def test_float64_windows_with_the_bias_in_the_product(memory, oc):
    """The bias as a row of ones in NCHW memory's columns; added after over NHWC memory's
    im2col product and when there are fewer pixels than filters (200 > 2 * 7 * 7); float64
    kept, batch 2, stride 2, dilation 2, asymmetric padding."""
    x = in_memory_order(rng.randn(2, 3, 17, 14), memory)
    w = rng.randn(oc, 3, 3, 3)
    bias = rng.randn(oc)
    attrs = {"strides": [2, 2], "paddings": [1, 0, 2, 1], "padding_algorithm": "EXPLICIT",
             "groups": 1, "dilations": [2, 2], "data_format": "NCHW",
             "fuse_activation": "relu", "fuse_alpha": 0.0, "fuse_beta": 0.0}
    out = fused_conv2d.fused_conv2d_kernel(attrs, x, w, bias, None)
    assert out.dtype == np.float64
    want = np.maximum(ref_conv(x, w, attrs) + bias[None, :, None, None], 0)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hard_swish_within_an_ulp_of_paddles_formula(dtype):
    """activate's hard_swish (clip(x, -3, 3) + 3, then a product with 1/6) against
    x * min(max(x + 3, 0), 6) / 6 in float64, over both kinks (-3 and 3), zero and the
    values between: within 1e-6 relative in float32 (an ulp is 6e-8), 1e-15 in float64."""
    x = np.concatenate([np.linspace(-4, 4, 2001), [-3, 3, 0, -0.0, -1e-30, 1e-30, 1e6, -1e6],
                        np.nextafter(np.array([-3.0, 3.0]), 0)]).astype(dtype)
    out = fused_conv2d.activate(x.copy(), "hard_swish", 0.0, 0.0)
    wide = x.astype(np.float64)
    want = wide * np.minimum(np.maximum(wide + 3, 0), 6) / 6
    assert out.dtype == dtype
    np.testing.assert_allclose(out, want, rtol=1e-6 if dtype == np.float32 else 1e-15, atol=0)
    assert np.all(out[x <= -3] == 0)
    np.testing.assert_array_max_ulp(out[x >= 3], x[x >= 3], maxulp=1)  # x * 6 * (1/6)


@pytest.mark.parametrize("act", ["relu", "hard_sigmoid", "hard_swish"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_by_one_maps_in_any_memory(act, dtype):
    """A squeeze-excite block's 1x1 convolutions of a 1x1 map (the matrix-vector path):
    batch 3, an input that is a strided view (every other channel), float64 kept, and the
    same result with and without a bias; a residual takes conv_math's path."""
    x = rng.randn(3, 12, 1, 1).astype(dtype)[:, ::2]
    w = rng.randn(7, 6, 1, 1).astype(dtype)
    bias = rng.randn(7).astype(dtype)
    residual = rng.randn(3, 7, 1, 1).astype(dtype)
    attrs = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT",
             "groups": 1, "dilations": [1, 1], "data_format": "NCHW",
             "fuse_activation": act, "fuse_alpha": 0.2, "fuse_beta": 0.5}
    conv = np.einsum("nchw,oc->nohw", x.astype(np.float64), w[:, :, 0, 0].astype(np.float64))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for b, r in ((bias, None), (None, None), (bias, residual)):
        out = fused_conv2d.fused_conv2d_kernel(attrs, x, w, b, r)
        assert out.shape == (3, 7, 1, 1) and out.dtype == dtype
        want = conv + (0 if b is None else b[None, :, None, None]) + (0 if r is None else r)
        np.testing.assert_allclose(out, REFS[act](want, 0.2, 0.5), rtol=tol, atol=tol)


@pytest.mark.parametrize("memory", ["NHWC", "NCHW"])
@pytest.mark.parametrize("x_shape, oc, channels_last", [
    ((1, 24, 7, 7), 96, True),  # fewer pixels than filters, a small output: channels-last
    ((1, 16, 7, 7), 3000, False),  # 147000 output values: the transposed product
    ((2, 12, 6, 5), 20, True),  # more pixels than filters
])
def test_gemm_ready_filters_give_the_same_results(memory, x_shape, oc, channels_last):
    """A 1x1 filter with [C, OC] memory (paddle_ir/passes/gemm_filters.py) gives the plain
    filter's results (a residual and hard_swish on top); over channels-last input its
    product stays channels-last up to conv_math's size limit."""
    x = in_memory_order(rng.randn(*x_shape).astype(np.float32), memory)
    plain = rng.randn(oc, x_shape[1], 1, 1).astype(np.float32)
    ready = np.ascontiguousarray(plain.reshape(oc, -1).T).T.reshape(plain.shape)
    assert ready.reshape(oc, -1).T.flags.c_contiguous
    bias = rng.randn(oc).astype(np.float32)
    residual = rng.randn(x_shape[0], oc, *x_shape[2:]).astype(np.float32)
    attrs = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT",
             "groups": 1, "dilations": [1, 1], "data_format": "NCHW",
             "fuse_activation": "hard_swish", "fuse_alpha": 0.0, "fuse_beta": 0.0}
    want = fused_conv2d.fused_conv2d_kernel(attrs, x, plain, bias, residual)
    got = fused_conv2d.fused_conv2d_kernel(attrs, x, ready, bias, residual)
    conv = np.einsum("nchw,oc->nohw", x.astype(np.float64), plain[:, :, 0, 0].astype(np.float64))
    exact = REFS["hard_swish"](conv + bias[None, :, None, None] + residual, 0, 0)
    np.testing.assert_allclose(got, exact, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    if memory == "NHWC":
        assert got.transpose(0, 2, 3, 1).flags.c_contiguous == channels_last
