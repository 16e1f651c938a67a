"""cross (ops/math/cross.py) against numpy.cross, with its gradient."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op


@pytest.mark.parametrize("shape,dim,axis", [((4, 3), -100, 1), ((3, 5), 0, 0),
                                            ((2, 3, 3), -100, 1), ((2, 3, 3), 2, 2)])
def test_cross_and_its_gradient(shape, dim, axis):
    r = np.random.RandomState(5)
    x, y = r.randn(*shape), r.randn(*shape)
    check_op("cross", {"X": x, "Y": y}, {"dim": dim}, {"Out": np.cross(x, y, axis=axis)})
    check_grad("cross", {"X": x, "Y": y}, {"dim": dim}, wrt=("X", "Y"))


def test_cross_needs_an_axis_of_size_3():
    with pytest.raises(PaddleIRError, match="must name an axis of size 3"):
        check_op("cross", {"X": np.zeros((2, 4)), "Y": np.zeros((2, 4))})
