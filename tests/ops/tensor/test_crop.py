"""crop and crop_tensor (ops/tensor/crop.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(19)


@pytest.mark.parametrize("op", ["crop", "crop_tensor"])
def test_crop(op):
    x = rng.uniform(-1, 1, (4, 5))
    check_op(op, {"X": x}, {"offsets": [1, 2], "shape": [2, -1]}, {"Out": x[1:3, 2:]})
    check_op(op, {"X": x, "Y": np.zeros((3, 2))}, {"offsets": [0, 1]}, {"Out": x[0:3, 1:3]})
    check_grad(op, {"X": x}, {"offsets": [1, 2], "shape": [2, 2]})
    with pytest.raises(ProgramError, match="exceeds X's dim 5"):
        check_op(op, {"X": x}, {"offsets": [0, 4], "shape": [1, 2]})
