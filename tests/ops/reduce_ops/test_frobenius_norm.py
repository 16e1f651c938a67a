"""frobenius_norm (ops/reduce_ops/frobenius_norm.py)."""

import numpy as np
import pytest

from tests.op_test import check_grad, check_op

rng = np.random.RandomState(101)


@pytest.mark.parametrize("dim,keep", [([1, 2], False), ([0], True), ([], False)])
def test_frobenius_norm(dim, keep):
    x = rng.uniform(-1, 1, (2, 3, 4))
    axes = tuple(dim) or (0, 1, 2)
    want = np.sqrt((x ** 2).sum(axis=axes, keepdims=keep))
    check_op("frobenius_norm", {"X": x}, {"dim": dim, "keep_dim": keep}, {"Out": want})
    check_grad("frobenius_norm", {"X": x}, {"dim": dim, "keep_dim": keep})
