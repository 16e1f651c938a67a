"""unpool (ops/nn/unpool.py): the inverse of max_pool2d_with_index, with its gradient."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError
from tests.op_test import check_grad, check_op


def _pool_with_index(x, k):
    n, c, h, w = x.shape
    oh, ow = h // k, w // k
    out, idx = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), np.int32)
    for i in range(oh):
        for j in range(ow):
            win = x[:, :, i * k:(i + 1) * k, j * k:(j + 1) * k].reshape(n, c, -1)
            a = win.argmax(-1)
            out[:, :, i, j] = win.max(-1)
            idx[:, :, i, j] = (i * k + a // k) * w + (j * k + a % k)
    return out, idx


def _put(vals, idx, oh, ow):
    out = np.zeros(vals.shape[:2] + (oh * ow,))
    for n in range(vals.shape[0]):
        for c in range(vals.shape[1]):
            out[n, c, idx[n, c].reshape(-1)] = vals[n, c].reshape(-1)
    return out.reshape(vals.shape[:2] + (oh, ow))


def test_unpool_puts_the_maxima_back_with_its_gradient():
    x = np.random.RandomState(1).permutation(2 * 3 * 6 * 4).reshape(2, 3, 6, 4) / 10.0
    pooled, idx = _pool_with_index(x, 2)
    want = _put(pooled, idx, 6, 4)
    np.testing.assert_array_equal(want.max(axis=(2, 3)), x.max(axis=(2, 3)))
    attrs = {"ksize": [2, 2], "strides": [2, 2], "paddings": [0, 0]}
    check_op("unpool", {"X": pooled, "Indices": idx}, attrs, {"Out": want})
    check_grad("unpool", {"X": pooled, "Indices": idx}, attrs)
    check_op("unpool", {"X": pooled, "Indices": idx}, {**attrs, "output_size": [7, 5]},
             {"Out": _put(pooled, idx, 7, 5)})


def test_unpool_index_outside_the_plane_is_named():
    with pytest.raises(KernelError, match=r"unpool: Indices\[1\] = 16 is outside the 4 x 4"):
        check_op("unpool", {"X": np.ones((1, 1, 2, 2)),
                            "Indices": np.array([[[[0, 16], [3, 4]]]], np.int32)},
                 {"ksize": [2, 2], "strides": [2, 2]})
