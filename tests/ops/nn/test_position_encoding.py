"""add_position_encoding (ops/nn/position_encoding.py)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(37)


def _pe(t, d):
    half = d // 2
    row = np.zeros(d)
    for k in range(half):
        val = t / 10000 ** (k / (half - 1)) if half > 1 else t / 10000.0
        row[k], row[half + k] = math.sin(val), math.cos(val)
    return row


def test_add_position_encoding_dense_and_lod():
    x = rng.uniform(-1, 1, (2, 3, 4))
    want = np.stack([[0.5 * x[b, t] + 2.0 * _pe(t, 4) for t in range(3)] for b in range(2)])
    attrs = {"alpha": 0.5, "beta": 2.0}
    check_op("add_position_encoding", {"X": x}, attrs, {"Out": want})
    check_grad("add_position_encoding", {"X": x}, attrs)
    rows = rng.uniform(-1, 1, (5, 6))
    lod = LoDTensor(rows)
    lod.set_recursive_sequence_lengths([[2, 3]])
    want = np.stack([0.5 * rows[i] + 2.0 * _pe(t, 6) for i, t in enumerate([0, 1, 0, 1, 2])])
    want_lod = LoDTensor(want)
    want_lod.set_recursive_sequence_lengths([[2, 3]])
    check_op("add_position_encoding", {"X": lod}, attrs, {"Out": want_lod})


ERROR_CASES = [
    ("add_position_encoding", {"X": np.ones((2, 3, 5))}, {}, "the last dim of X must be even"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
