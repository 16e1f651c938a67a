"""l1_norm (ops/math/l1_norm.py) against numpy, with its gradient."""

import numpy as np

from tests.op_test import check_grad, check_op


def test_l1_norm_and_its_gradient():
    x = np.random.RandomState(1).uniform(-2, 2, (4, 3))
    x[np.abs(x) < 0.05] = 0.3  # away from |x|'s kink for the differences
    check_op("l1_norm", {"X": x}, {}, {"Out": np.array([np.abs(x).sum()])})
    check_op("l1_norm", {"X": x.astype(np.float32)}, {},
             {"Out": np.array([np.abs(x).sum()], np.float32)})
    check_grad("l1_norm", {"X": x})
