"""sequence_slice (ops/sequence_ops/sequence_slice.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(29)


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


def test_sequence_slice():
    x = rng.uniform(-1, 1, (7, 2))
    lengths = [3, 4]
    offset = np.array([[1], [0]], dtype=np.int64)
    length = np.array([[2], [3]], dtype=np.int64)
    seqs = _seqs(x, lengths)
    want = np.concatenate([seqs[0][1:3], seqs[1][0:3]])
    inputs = {"X": lod(x, lengths), "Offset": offset, "Length": length}
    check_op("sequence_slice", inputs, {}, {"Out": lod(want, [2, 3])})
    check_grad("sequence_slice", inputs)
    with pytest.raises(PaddleIRError, match="must lie inside its sequence"):
        check_op("sequence_slice", {**inputs, "Length": np.array([[3], [3]], np.int64)})


F = np.ones((2, 3))


ERROR_CASES = [
    ("sequence_slice", {"X": lod(F, [2]), "Offset": np.array([[0.0]]),
                        "Length": np.array([[1]], np.int64)}, {},
     "Offset must be int32 or int64"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
