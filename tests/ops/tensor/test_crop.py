"""crop and crop_tensor (ops/tensor/crop.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError, ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(19)


@pytest.mark.parametrize("op", ["crop", "crop_tensor"])
def test_crop(op):
    x = rng.uniform(-1, 1, (4, 5))
    check_op(op, {"X": x}, {"offsets": [1, 2], "shape": [2, -1]}, {"Out": x[1:3, 2:]})
    if op == "crop":
        check_op(op, {"X": x, "Y": np.zeros((3, 2))}, {"offsets": [0, 1]},
                 {"Out": x[0:3, 1:3]})
    check_grad(op, {"X": x}, {"offsets": [1, 2], "shape": [2, 2]})
    with pytest.raises(ProgramError, match="exceeds X's dim 5"):
        check_op(op, {"X": x}, {"offsets": [0, 4], "shape": [1, 2]})


# --- offsets and shape given as tensors (ops/tensor_attrs.py) ---------------------------------

I32 = np.int32


@pytest.mark.parametrize("inputs", [
    {"Shape": np.array([2, 3], I32), "Offsets": np.array([1, 2], I32)},
    {"ShapeTensor": [("s0", np.array([2], I32)), ("s1", np.array([-1], I32))],
     "OffsetsTensor": [("o0", np.array([1], I32)), ("o1", np.array([2], I32))]},
    {"Shape": np.array([2, 3], I32), "OffsetsTensor": [("o0", np.array([1], I32)),
                                                       ("o1", np.array([2], I32))]},
])
def test_crop_tensor_takes_its_box_from_tensors(inputs):
    x = rng.uniform(-1, 1, (4, 5))
    attrs = {"offsets": [0, 0], "shape": [1, 1]}  # overridden by the tensors
    check_op("crop_tensor", {"X": x, **inputs}, attrs, {"Out": x[1:3, 2:5]})
    check_grad("crop_tensor", {"X": x, **inputs}, attrs)


def test_crop_takes_offsets_from_a_tensor_and_checks_the_box_when_it_runs():
    x = rng.uniform(-1, 1, (4, 5))
    check_op("crop", {"X": x, "Offsets": np.array([2, 1], I32)}, {"shape": [2, 3]},
             {"Out": x[2:4, 1:4]})
    with pytest.raises(KernelError, match=r"crop: the crop \[offsets \[3, 1\], shape \[2, 3\]\] "
                                          r"does not fit X \[4, 5\]"):
        check_op("crop", {"X": x, "Offsets": np.array([3, 1], I32)}, {"shape": [2, 3]})
