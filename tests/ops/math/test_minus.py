"""minus (ops/math/minus.py) against numpy, with its gradient."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op


def test_minus_and_its_gradient():
    r = np.random.RandomState(0)
    x, y = r.randn(3, 4), r.randn(3, 4)
    check_op("minus", {"X": x, "Y": y}, {}, {"Out": x - y})
    check_grad("minus", {"X": x, "Y": y}, wrt=("X", "Y"))


def test_minus_of_different_shapes_is_refused():
    with pytest.raises(PaddleIRError, match="X and Y must have the same shape"):
        check_op("minus", {"X": np.zeros((3, 4)), "Y": np.zeros((4, 3))})
