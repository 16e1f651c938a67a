"""allclose (ops/math/allclose.py) against numpy.allclose, NaNs and broadcasting included."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op


@pytest.mark.parametrize("shift,equal_nan,nan", [(1e-9, False, False), (1e-3, False, False),
                                                 (0.0, False, True), (0.0, True, True)])
def test_allclose_agrees_with_numpy(shift, equal_nan, nan):
    x = np.random.RandomState(4).rand(3, 4)
    y = x + shift
    if nan:
        x[1, 2] = y[1, 2] = np.nan
    want = np.allclose(x, y, rtol=float(np.float32(1e-5)), atol=float(np.float32(1e-8)),
                       equal_nan=equal_nan)
    check_op("allclose", {"Input": x, "Other": y}, {"equal_nan": equal_nan},
             {"Out": np.array([want])})


def test_allclose_broadcasts_and_refuses_what_does_not():
    x = np.ones((2, 3))
    check_op("allclose", {"Input": x, "Other": np.ones((1, 3))}, {}, {"Out": np.array([True])})
    with pytest.raises(PaddleIRError, match="do not broadcast"):
        check_op("allclose", {"Input": x, "Other": np.ones((2, 2))})
