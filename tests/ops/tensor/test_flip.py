"""flip, roll and reverse (ops/tensor/flip.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError, ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(53)


def test_flip_and_roll():
    x = rng.uniform(-1, 1, (2, 3, 4))
    check_op("flip", {"X": x}, {"axis": [0, 2]}, {"Out": x[::-1, :, ::-1]})
    check_grad("flip", {"X": x}, {"axis": [1]})
    want = np.empty_like(x)
    for j in range(3):
        for k in range(4):
            want[:, (j + 1) % 3, (k - 2) % 4] = x[:, j, k]
    check_op("roll", {"X": x}, {"shifts": [1, -2], "axis": [1, 2]}, {"Out": want})
    check_op("roll", {"X": x, "ShiftsTensor": np.array([1, -2], np.int64)},
             {"axis": [1, 2]}, {"Out": want})
    flat = x.reshape(-1)
    check_op("roll", {"X": x}, {"shifts": [5]},
             {"Out": np.array([flat[(i - 5) % flat.size] for i in range(flat.size)])
              .reshape(x.shape)})
    check_grad("roll", {"X": x}, {"shifts": [1, -2], "axis": [1, 2]})
    with pytest.raises(ProgramError, match="axis holds 3, outside X"):
        check_op("flip", {"X": x}, {"axis": [3]})
    with pytest.raises(ProgramError, match="must hold one entry per axis"):
        check_op("roll", {"X": x}, {"shifts": [1], "axis": [0, 1]})


F = np.ones((2, 3))


ERROR_CASES = [
    ("reverse", {"X": F}, {"axis": [2]}, r"axis must list axes in \[-2, 2\)"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)


def test_reverse_and_its_gradient():
    x = rng.uniform(-1, 1, (3, 2, 4))
    check_op("reverse", {"X": x}, {"axis": [0, 2]}, {"Out": x[::-1, :, ::-1]})
    check_grad("reverse", {"X": x}, {"axis": [1]})
def test_flip_takes_paddle_1_8_s_dims_attribute():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    check_op("flip", {"X": x}, {"dims": [0, 2]}, {"Out": x[::-1, :, ::-1]})
    check_op("flip", {"X": x}, {"axis": [1], "dims": [0]}, {"Out": x[:, ::-1]})  # axis wins
    check_grad("flip", {"X": x}, {"dims": [2]})
