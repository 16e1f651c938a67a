"""logsumexp (ops/reduce_ops/logsumexp.py)."""

import math

import numpy as np
import pytest

from tests.op_test import check_grad, check_op

rng = np.random.RandomState(53)


@pytest.mark.parametrize("axis,keepdim", [([1], False), ([0, 2], True), ([], False)])
def test_logsumexp(axis, keepdim):
    x = rng.uniform(-3, 3, (2, 3, 4))
    axes = tuple(axis) or (0, 1, 2)
    want = np.log(np.exp(x).sum(axis=axes, keepdims=keepdim))
    check_op("logsumexp", {"X": x}, {"axis": axis, "keepdim": keepdim}, {"Out": want})
    check_grad("logsumexp", {"X": x}, {"axis": axis, "keepdim": keepdim})
    big = np.array([[1000.0, 1000.0]])
    check_op("logsumexp", {"X": big}, {"axis": [1]}, {"Out": np.array([1000 + math.log(2)])})
