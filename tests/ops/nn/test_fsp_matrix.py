"""fsp and fsp_matrix (ops/nn/fsp_matrix.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(37)


@pytest.mark.parametrize("op_type", ["fsp", "fsp_matrix"])
def test_fsp_matrix(op_type):
    x, y = rng.uniform(-1, 1, (2, 3, 2, 2)), rng.uniform(-1, 1, (2, 4, 2, 2))
    want = np.array([[[np.sum(x[n, i] * y[n, j]) / 4 for j in range(4)] for i in range(3)]
                     for n in range(2)])
    check_op(op_type, {"X": x, "Y": y}, {}, {"Out": want})
    check_grad(op_type, {"X": x, "Y": y}, wrt=("X", "Y"))


ERROR_CASES = [
    ("fsp_matrix", {"X": np.ones((1, 2, 3, 3)), "Y": np.ones((1, 2, 2, 3))}, {},
     "X and Y must be"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
