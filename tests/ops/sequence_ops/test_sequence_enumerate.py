"""sequence_enumerate (ops/sequence_ops/sequence_enumerate.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


def _seqs(arr, lengths):
    out, start = [], 0
    for n in lengths:
        out.append(arr[start:start + n])
        start += n
    return out


def test_sequence_enumerate():
    ids = np.array([[1], [2], [3], [4], [5], [6]], dtype=np.int64)
    lengths = [3, 0, 1, 2]
    want = []
    for seq in _seqs(ids[:, 0], lengths):
        for j in range(len(seq)):
            want.append([seq[j + k] if j + k < len(seq) else 9 for k in range(3)])
    check_op("sequence_enumerate", {"X": lod(ids, lengths)}, {"win_size": 3, "pad_value": 9},
             {"Out": lod(np.array(want, np.int64), lengths)})


ERROR_CASES = [
    ("sequence_enumerate", {"X": lod(np.ones((3, 2), np.int64), [3])}, {"win_size": 2},
     r"X must be \[N, 1\]"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
