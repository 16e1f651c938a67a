"""cos_sim (ops/math/cos_sim.py): forward, gradient and shape errors."""

import numpy as np
import pytest

from paddle_ir.core.errors import ShapeInferenceError
from tests.op_test import append_declared_op, check_grad, check_op

rng = np.random.RandomState(5)


@pytest.mark.parametrize("y_rows", [4, 1])
def test_cos_sim_and_its_gradient(y_rows):
    x, y = rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (y_rows, 3))
    nx, ny = np.linalg.norm(x, axis=1), np.linalg.norm(y, axis=1)
    want = ((x * y).sum(1) / (nx * ny))[:, None]
    check_op("cos_sim", {"X": x, "Y": y}, {},
             {"Out": want, "XNorm": nx[:, None], "YNorm": ny[:, None]})
    check_grad("cos_sim", {"X": x, "Y": y}, wrt=("X", "Y"))


F, I64 = "float32", "int64"

BUILD_ERRORS = [
    ("cos_sim", {"X": ([-1, 3], F, 0), "Y": ([-1, 4], F, 0)}, ["Out", "XNorm", "YNorm"], {},
     "must agree in every dim but the first"),
    ("cos_sim", {"X": ([4, 3], F, 0), "Y": ([2, 3], F, 0)}, ["Out", "XNorm", "YNorm"], {},
     "Y must have X's rows \\(4\\) or one row"),
]


@pytest.mark.parametrize("op_type,inputs,outputs,attrs,message", BUILD_ERRORS)
def test_build_time_errors(op_type, inputs, outputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=message):
        append_declared_op(op_type, inputs, outputs, attrs)
