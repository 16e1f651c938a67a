"""dist (ops/math/dist.py): the p-norm of X - Y against numpy.linalg.norm, with gradients
for broadcast shapes."""

import numpy as np
import pytest

from tests.op_test import check_grad, check_op


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, np.inf, -np.inf])
def test_dist_against_numpy(p):
    r = np.random.RandomState(6)
    x, y = r.randn(3, 4), r.randn(4)
    x[0, 0] = y[0]  # one zero difference: p = 0 counts the others
    d = (x - y).reshape(-1)
    want = np.count_nonzero(d) if p == 0 else np.linalg.norm(d, ord=p)
    check_op("dist", {"X": x, "Y": y}, {"p": p}, {"Out": np.array([want], np.float64)})
    if p != 0:
        x[0, 0] += 0.5  # away from |d|'s kink for the differences
        check_grad("dist", {"X": x, "Y": y}, {"p": p}, wrt=("X", "Y"))
