"""The random ops of ops/tensor/random.py (*_random_batch_size_like, random_crop,
sampling_id)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op


def test_random_batch_size_like():
    x = np.zeros((7, 2), np.float32)
    out = check_op("uniform_random_batch_size_like", {"Input": x},
                   {"shape": [-1, 3], "min": 1.0, "max": 2.0, "seed": 3})["Out"][0]
    out = np.asarray(out)
    assert out.shape == (7, 3) and out.min() >= 1.0 and out.max() < 2.0
    out = np.asarray(check_op("gaussian_random_batch_size_like", {"Input": x},
                              {"shape": [4, -1], "output_dim_idx": 1, "mean": 3.0, "std": 0.1,
                               "seed": 5})["Out"][0])
    assert out.shape == (4, 7) and abs(out.mean() - 3.0) < 0.1


def test_random_crop_is_a_window_of_the_input():
    x = np.arange(2 * 5 * 6, dtype=np.float32).reshape(2, 5, 6)
    out = check_op("random_crop", {"X": x, "Seed": np.array([7], np.int64)},
                   {"shape": [3, 2]})
    crop = np.asarray(out["Out"][0])
    assert crop.shape == (2, 3, 2)
    for b in range(2):
        windows = [x[b, i:i + 3, j:j + 2] for i in range(3) for j in range(5)]
        assert any(np.array_equal(crop[b], w) for w in windows)


def test_sampling_id_follows_the_probabilities():
    probs = np.tile(np.array([[0.1, 0.6, 0.3]], np.float32), (20000, 1))
    out = np.asarray(check_op("sampling_id", {"X": probs}, {"seed": 11})["Out"][0])
    freq = np.bincount(out, minlength=3) / out.size
    np.testing.assert_allclose(freq, [0.1, 0.6, 0.3], atol=0.02)


F = np.ones((2, 3))


ERROR_CASES = [
    ("random_crop", {"X": F, "Seed": np.array([1], np.int64)}, {"shape": [4]},
     r"crop shape \[4\] exceeds X's dims \[3\]"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)


def test_seeded_normal_draws_have_their_moments():
    """gaussian_random: N(mean, std). truncated_gaussian_random: N(mean, std) cut at two
    std, as Paddle draws it: its std is 0.8796 std. A fixed seed gives the same draws on
    every run (check_op compares the cached-plan runs with the first)."""
    n = 20000
    draws = np.asarray(check_op("gaussian_random", {}, {"shape": [n], "mean": 2.0, "std": 0.5,
                                                        "seed": 13})["Out"][0])
    assert draws.shape == (n,) and draws.dtype == np.float32
    assert abs(draws.mean() - 2.0) < 0.02 and abs(draws.std() - 0.5) < 0.02
    cut = np.asarray(check_op("truncated_gaussian_random", {},
                              {"shape": [n], "mean": -1.0, "std": 2.0, "seed": 13})["Out"][0])
    assert cut.min() >= -1.0 - 4.0 and cut.max() <= -1.0 + 4.0
    assert abs(cut.mean() + 1.0) < 0.05 and abs(cut.std() - 0.8796 * 2.0) < 0.05
# --- randperm and randint ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype,np_dtype", [(3, np.int64), (2, np.int32), (5, np.float32)])
def test_randperm_is_a_permutation_and_a_seed_repeats_it(dtype, np_dtype):
    first = check_op("randperm", {}, {"n": 50, "dtype": dtype, "seed": 3})["Out"][0]
    again = check_op("randperm", {}, {"n": 50, "dtype": dtype, "seed": 3})["Out"][0]
    first, again = np.asarray(first), np.asarray(again)
    assert first.dtype == np_dtype
    np.testing.assert_array_equal(np.sort(first), np.arange(50))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, np.arange(50))


def test_randint_draws_in_range_with_shape_from_attr_or_tensors():
    out = np.asarray(check_op("randint", {}, {"shape": [4, 5], "low": -3, "high": 4,
                                              "seed": 1})["Out"][0])
    assert out.shape == (4, 5) and out.dtype == np.int64
    assert out.min() >= -3 and out.max() < 4 and len(np.unique(out)) > 3
    out = check_op("randint", {"ShapeTensor": np.array([2, 3], np.int64)},
                   {"shape": [9], "high": 2})["Out"][0]
    assert np.asarray(out).shape == (2, 3)
    out = check_op("randint", {"ShapeTensorList": [("a", np.array([3], np.int32)),
                                                   ("b", np.array([1], np.int32))]},
                   {"high": 5, "dtype": 2})["Out"][0]
    assert np.asarray(out).shape == (3, 1) and np.asarray(out).dtype == np.int32


def test_randint_low_must_be_below_high():
    with pytest.raises(PaddleIRError, match="low must be < high"):
        check_op("randint", {}, {"shape": [2], "low": 3, "high": 3})
