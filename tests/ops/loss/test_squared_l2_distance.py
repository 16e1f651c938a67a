"""squared_l2_distance (ops/loss/squared_l2_distance.py): row-wise squared distances,
Y with X's rows or one broadcast row, and the gradients of both."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op


@pytest.mark.parametrize("y_rows", [5, 1])
def test_distances_and_gradients(y_rows):
    r = np.random.RandomState(2)
    x, y = r.randn(5, 2, 3), r.randn(y_rows, 2, 3)
    sub = x.reshape(5, 6) - y.reshape(y_rows, 6)
    check_op("squared_l2_distance", {"X": x, "Y": y}, {},
             {"sub_result": sub, "Out": (sub ** 2).sum(1, keepdims=True)})
    check_grad("squared_l2_distance", {"X": x, "Y": y}, wrt=("X", "Y"))


def test_mismatched_rows_are_refused():
    with pytest.raises(PaddleIRError, match=r"Y must have X's rows \(5\) or one row"):
        check_op("squared_l2_distance", {"X": np.zeros((5, 3)), "Y": np.zeros((2, 3))})
    with pytest.raises(PaddleIRError, match="a row of Y must hold as many values"):
        check_op("squared_l2_distance", {"X": np.zeros((5, 3)), "Y": np.zeros((5, 4))})
