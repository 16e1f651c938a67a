"""bilinear_tensor_product (ops/nn/bilinear_tensor_product.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(37)


def test_bilinear_tensor_product():
    x, y = rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (3, 4))
    w, b = rng.uniform(-1, 1, (5, 2, 4)), rng.uniform(-1, 1, (1, 5))
    want = np.array([[x[n] @ w[i] @ y[n] + b[0, i] for i in range(5)] for n in range(3)])
    inputs = {"X": x, "Y": y, "Weight": w, "Bias": b}
    check_op("bilinear_tensor_product", inputs, {}, {"Out": want})
    check_grad("bilinear_tensor_product", inputs, wrt=("X", "Y", "Weight", "Bias"))


F = np.ones((2, 3))


ERROR_CASES = [
    ("bilinear_tensor_product", {"X": F, "Y": F, "Weight": np.ones((2, 4, 3))}, {},
     r"Weight.shape\[1\] 4 != M 3"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
