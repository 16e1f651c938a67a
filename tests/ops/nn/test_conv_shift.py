"""conv_shift (ops/nn/conv_shift.py) against the circular sum written out, with gradients."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op


@pytest.mark.parametrize("m,n", [(5, 3), (7, 7), (4, 1)])
def test_conv_shift_and_its_gradients(m, n):
    r = np.random.RandomState(m * n)
    x, y = r.randn(3, m), r.randn(3, n)
    h = (n - 1) // 2
    want = np.array([[sum(x[b, (i + j) % m] * y[b, j + h] for j in range(-h, h + 1))
                      for i in range(m)] for b in range(3)])
    check_op("conv_shift", {"X": x, "Y": y}, {}, {"Out": want})
    check_grad("conv_shift", {"X": x, "Y": y}, wrt=("X", "Y"))


def test_conv_shift_needs_an_odd_width():
    with pytest.raises(PaddleIRError, match="Y's width must be odd"):
        check_op("conv_shift", {"X": np.zeros((2, 5)), "Y": np.zeros((2, 2))})
