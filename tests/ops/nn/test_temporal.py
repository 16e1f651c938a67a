"""temporal_shift and row_conv (ops/nn/temporal.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(37)


def test_temporal_shift():
    x = rng.uniform(-1, 1, (2 * 3, 4, 1, 2))
    v = x.reshape(2, 3, 4, 1, 2)
    want = np.zeros_like(v)
    for t in range(3):
        if t > 0:
            want[:, t, 0] = v[:, t - 1, 0]
        if t < 2:
            want[:, t, 1] = v[:, t + 1, 1]
        want[:, t, 2:] = v[:, t, 2:]
    attrs = {"seg_num": 3, "shift_ratio": 0.25}
    check_op("temporal_shift", {"X": x}, attrs, {"Out": want.reshape(x.shape)})
    check_grad("temporal_shift", {"X": x}, attrs)


def test_row_conv():
    x = rng.uniform(-1, 1, (6, 2))
    f = rng.uniform(-1, 1, (3, 2))
    lengths = [4, 2]
    want = np.zeros_like(x)
    start = 0
    for n in lengths:
        for t in range(n):
            for j in range(3):
                if t + j < n:
                    want[start + t] += x[start + t + j] * f[j]
        start += n
    lx = LoDTensor(x)
    lx.set_recursive_sequence_lengths([lengths])
    lw = LoDTensor(want)
    lw.set_recursive_sequence_lengths([lengths])
    check_op("row_conv", {"X": lx, "Filter": f}, {}, {"Out": lw})
    check_grad("row_conv", {"X": lx, "Filter": f}, wrt=("X", "Filter"))


F = np.ones((2, 3))


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


ERROR_CASES = [
    ("temporal_shift", {"X": np.ones((3, 4, 1, 1))}, {"seg_num": 2},
     "must be a multiple of seg_num 2"),
    ("row_conv", {"X": lod(F, [2]), "Filter": np.ones((2, 4))}, {},
     r"Filter \[future \+ 1, D\] expected"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
