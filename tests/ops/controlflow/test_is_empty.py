"""is_empty (ops/controlflow/is_empty.py)."""

import numpy as np

from tests.op_test import check_op


def test_is_empty():
    got = check_op("is_empty", {"X": np.zeros((0, 3), np.float32)}, {},
                   {"Out": np.array([True])})
    assert got
    check_op("is_empty", {"X": np.zeros((2,), np.int64)}, {}, {"Out": np.array([False])})
