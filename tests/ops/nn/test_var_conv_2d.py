"""var_conv_2d (+ grad) against a direct convolution loop over each variable-size image.

The reference sums kernel taps one output position at a time, from the
formula of Paddle 1.8's var_conv_2d_op.cc (centred kernel, zero outside the
image); the op gathers whole im2col matrices. Paddle 3.3.1 no longer has it.
"""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError, ShapeInferenceError
from tests.op_test import check_grad, check_op


def ref_var_conv(x, heights, widths, w, c_in, c_out, kh, kw, sh, sw):
    out, start = [], 0
    for h, wd in zip(heights, widths, strict=True):
        img = x[start:start + c_in * h * wd].reshape(c_in, h, wd)
        start += c_in * h * wd
        oh = 0 if h == 0 else (h - 1) // sh + 1
        ow = 0 if wd == 0 else (wd - 1) // sw + 1
        res = np.zeros((c_out, oh, ow))
        for o in range(c_out):
            for yo in range(oh):
                for xo in range(ow):
                    total = 0.0
                    for c in range(c_in):
                        for ky in range(kh):
                            for kx in range(kw):
                                iy, ix = yo * sh + ky - kh // 2, xo * sw + kx - kw // 2
                                if 0 <= iy < h and 0 <= ix < wd:
                                    total += w[o, (c * kh + ky) * kw + kx] * img[c, iy, ix]
                    res[o, yo, xo] = total
        out.append(res.reshape(-1))
    return np.concatenate(out).reshape(-1, 1), [len(o) for o in out]


def make_inputs(heights, widths, c_in, c_out, kh, kw, dtype=np.float64, seed=0):
    rng = np.random.RandomState(seed)
    sizes = [c_in * h * w for h, w in zip(heights, widths, strict=True)]
    return {
        "X": pir.create_lod_tensor(rng.uniform(-1, 1, (sum(sizes), 1)).astype(dtype), [sizes]),
        "ROW": pir.create_lod_tensor(np.zeros((sum(heights), 1), dtype), [heights]),
        "COLUMN": pir.create_lod_tensor(np.zeros((sum(widths), 1), dtype), [widths]),
        "W": rng.uniform(-1, 1, (c_out, c_in * kh * kw)).astype(dtype),
    }


def attrs_of(c_in, c_out, kh, kw, sh, sw):
    return {"InputChannel": c_in, "OutputChannel": c_out, "KernelH": kh, "KernelW": kw,
            "StrideH": sh, "StrideW": sw}


CASES = [
    ([3, 4], [5, 2], 1, 2, 3, 3, 1, 1),
    ([4, 0, 5], [3, 2, 6], 2, 3, 2, 3, 2, 2),   # an empty image; an even kernel; strides
    ([1, 6], [7, 1], 2, 1, 5, 1, 3, 1),
]


@pytest.mark.parametrize("heights, widths, c_in, c_out, kh, kw, sh, sw", CASES)
def test_matches_the_reference(heights, widths, c_in, c_out, kh, kw, sh, sw):
    inputs = make_inputs(heights, widths, c_in, c_out, kh, kw)
    want, lengths = ref_var_conv(np.asarray(inputs["X"]).reshape(-1), heights, widths,
                                 inputs["W"], c_in, c_out, kh, kw, sh, sw)
    check_op("var_conv_2d", inputs, attrs_of(c_in, c_out, kh, kw, sh, sw),
             {"Out": pir.create_lod_tensor(want, [lengths])})


def test_float32():
    inputs = make_inputs([3, 2], [2, 4], 2, 2, 3, 3, dtype=np.float32, seed=1)
    want, lengths = ref_var_conv(np.asarray(inputs["X"], np.float64).reshape(-1), [3, 2],
                                 [2, 4], inputs["W"].astype(np.float64), 2, 2, 3, 3, 1, 1)
    check_op("var_conv_2d", inputs, attrs_of(2, 2, 3, 3, 1, 1),
             {"Out": pir.create_lod_tensor(want.astype(np.float32), [lengths])}, atol=1e-5)


@pytest.mark.parametrize("heights, widths, c_in, c_out, kh, kw, sh, sw", CASES[:2])
def test_gradient(heights, widths, c_in, c_out, kh, kw, sh, sw):
    check_grad("var_conv_2d", make_inputs(heights, widths, c_in, c_out, kh, kw, seed=3),
               attrs_of(c_in, c_out, kh, kw, sh, sw), wrt=("X", "W"), out_slot="Out")


def test_rejects_bad_filters_and_attributes():
    inputs = make_inputs([2], [2], 1, 2, 3, 3)
    with pytest.raises(ShapeInferenceError, match=r"W must be \[OutputChannel, InputChannel \* "
                                                  r"KernelH \* KernelW\] = \[2, 4\], got \[2, 9\]"):
        check_op("var_conv_2d", inputs, attrs_of(1, 2, 2, 2, 1, 1))
    with pytest.raises(ShapeInferenceError, match=r"StrideH must be > 0, got 0"):
        check_op("var_conv_2d", inputs, attrs_of(1, 2, 3, 3, 0, 1))


def test_rejects_images_that_do_not_match_their_sizes():
    inputs = make_inputs([2, 3], [2, 2], 1, 1, 1, 1)
    inputs["ROW"] = pir.create_lod_tensor(np.zeros((5, 1)), [[3, 2]])
    with pytest.raises(KernelError, match=r"X's sequence 0 must hold InputChannel \* rows \* "
                                          r"columns = 1 \* 3 \* 2 = 6 values, got 4"):
        check_op("var_conv_2d", inputs, attrs_of(1, 1, 1, 1, 1, 1))
    inputs["ROW"] = pir.create_lod_tensor(np.zeros((5, 1)), [[5]])
    with pytest.raises(KernelError, match=r"same number of sequences .* got 2, 1 and 2"):
        check_op("var_conv_2d", inputs, attrs_of(1, 1, 1, 1, 1, 1))
