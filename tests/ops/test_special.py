"""erf and expit (ops/special.py): float32 erf by a rational approximation, others scipy's."""

import math

import numpy as np
import pytest

from paddle_ir.ops.special import erf


def test_float32_erf_is_within_a_few_ulps_of_the_exact_value():
    x = np.concatenate([np.linspace(-7, 7, 400_001), [-1e30, -4.0, 0.0, 1e-30, 4.0, 1e30],
                        np.random.default_rng(0).standard_normal(10_000) * 3])
    exact = np.array([math.erf(v) for v in x.astype(np.float32).astype(np.float64)])
    got = erf(x.astype(np.float32))
    assert got.dtype == np.float32 and got.shape == x.shape
    assert np.abs(got - exact).max() <= 5e-7
    # odd, and exactly +-1 beyond |x| = 4 (as float32 erf is)
    np.testing.assert_array_equal(erf(-x.astype(np.float32)), -got)
    assert erf(np.array([np.inf, -np.inf], np.float32)).tolist() == [1.0, -1.0]
    assert np.isnan(erf(np.array([np.nan], np.float32)))[0]


def test_out_may_be_the_input_and_other_dtypes_take_scipy():
    x = np.linspace(-3, 3, 101).astype(np.float32)
    want = erf(x)
    assert erf(x, out=x) is x
    np.testing.assert_array_equal(x, want)
    x64 = np.linspace(-3, 3, 101)
    np.testing.assert_allclose(erf(x64), [math.erf(v) for v in x64], rtol=1e-15, atol=1e-16)
    assert float(erf(np.float32(0.5))) == pytest.approx(math.erf(0.5), rel=1e-6)  # 0-d
