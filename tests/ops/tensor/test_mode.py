"""mode (ops/tensor/mode.py) against counts made with numpy, keepdim and gradients (Paddle's
index among equal values is checked by the op_families fixture)."""

import numpy as np
import pytest

from tests.op_test import check_grad, check_op


def _numpy_mode(row):
    values, counts = np.unique(row, return_counts=True)
    return values[np.argmax(counts)]  # unique sorts: the first maximum is the smallest value


@pytest.mark.parametrize("axis,keepdim", [(-1, False), (0, True)])
def test_mode_is_the_smallest_most_frequent_value(axis, keepdim):
    x = np.random.RandomState(1).randint(0, 5, (7, 20)).astype(np.float64)
    got = check_op("mode", {"X": x}, {"axis": axis, "keepdim": keepdim})
    rows = np.moveaxis(x, axis, -1)
    want = np.array([_numpy_mode(r) for r in rows])
    out, idx = np.asarray(got["Out"][0]), np.asarray(got["Indices"][0])
    if keepdim:
        out, idx = np.squeeze(out, axis), np.squeeze(idx, axis)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(np.take_along_axis(rows, idx[:, None], -1)[:, 0], want)


def test_mode_gradient():
    # distinct values (every count 1, the mode is the row's minimum): a tie would break
    # under the differences' perturbation and move the mode
    x = np.array([[1.5, 2.0, 0.25, 3.0], [5.0, 4.0, 4.5, 5.5]])
    check_grad("mode", {"X": x}, {})
