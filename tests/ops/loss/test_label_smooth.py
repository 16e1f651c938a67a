"""label_smooth (ops/loss/label_smooth.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op


def test_label_smooth():
    x = np.eye(4)[[0, 2, 3]]
    check_op("label_smooth", {"X": x}, {"epsilon": 0.1}, {"Out": x * 0.9 + 0.1 / 4})
    prior = np.array([[0.1, 0.2, 0.3, 0.4]])
    check_op("label_smooth", {"X": x, "PriorDist": prior}, {"epsilon": 0.2},
             {"Out": x * 0.8 + 0.2 * prior})
    check_grad("label_smooth", {"X": x}, {"epsilon": 0.1})


F = np.ones((2, 3))


ERROR_CASES = [
    ("label_smooth", {"X": F, "PriorDist": np.ones((1, 4))}, {},
     "PriorDist must have X's last dim 3"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
