"""kthvalue (ops/tensor/kthvalue.py) against numpy's sort, keepdim and gradients (Paddle's
index among ties is checked by the op_families fixture)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op


@pytest.mark.parametrize("shape,k,axis,keepdim", [((4, 9), 3, -1, False), ((5, 3, 2), 5, 0, True),
                                                  ((2, 200), 2, 1, False), ((6,), 6, 0, False)])
def test_kthvalue_is_the_kth_smallest(shape, k, axis, keepdim):
    x = np.random.RandomState(k).permutation(np.prod(shape)).reshape(shape).astype(np.float64)
    want = np.take(np.sort(x, axis=axis), k - 1, axis=axis)
    idx = np.take(np.argsort(x, axis=axis), k - 1, axis=axis)
    if keepdim:
        want, idx = np.expand_dims(want, axis), np.expand_dims(idx, axis)
    check_op("kthvalue", {"X": x}, {"k": k, "axis": axis, "keepdim": keepdim},
             {"Out": want, "Indices": idx})
    check_grad("kthvalue", {"X": x}, {"k": k, "axis": axis, "keepdim": keepdim})


def test_kthvalue_with_ties_points_at_an_equal_value():
    x = np.random.RandomState(0).randint(0, 4, (6, 30)).astype(np.float32)
    got = check_op("kthvalue", {"X": x}, {"k": 7})
    idx = np.asarray(got["Indices"][0])
    np.testing.assert_array_equal(np.take_along_axis(x, idx[:, None], 1)[:, 0],
                                  np.sort(x, 1)[:, 6])
    np.testing.assert_array_equal(np.asarray(got["Out"][0]), np.sort(x, 1)[:, 6])


def test_kthvalue_k_beyond_the_axis_is_named():
    with pytest.raises(PaddleIRError, match=r"k must be in \[1, 4\]"):
        check_op("kthvalue", {"X": np.zeros((3, 4))}, {"k": 5})
