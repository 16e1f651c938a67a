"""A convolution's bias over its output's memory (ops/nn/conv_bias.py)."""

import numpy as np
import pytest

from paddle_ir.ops.nn import conv_bias

rng = np.random.RandomState(12)


def in_memory_order(nchw: np.ndarray, order: str) -> np.ndarray:
    """nchw's values as an NCHW-shaped view of memory laid out in `order` (a permutation
    of "NCHW"), the layouts conv_math.forward returns."""
    axes = ["NCHW".index(a) for a in order]
    return nchw.transpose(axes).copy().transpose(np.argsort(axes))  # a copy in every order


@pytest.mark.parametrize("order", ["NHWC", "NCHW", "CNHW", "HWNC"])
@pytest.mark.parametrize("shape", [(1, 96, 28, 28), (3, 24, 30, 31), (2, 7, 5, 3)])
def test_add_channel_bias_in_every_memory_order(order, shape):
    """Every layout (HWNC is none of forward's: the broadcast fallback), above and below
    the size that tiles the bias, and pixel counts with few divisors (3 * 30 * 31)."""
    base = rng.randn(*shape)
    bias = rng.randn(shape[1])
    out = in_memory_order(base, order)
    conv_bias.add_channel_bias(out, bias)
    np.testing.assert_array_equal(out, base + bias[None, :, None, None])
