"""unstack (ops/tensor/unstack.py): forward, gradient and errors."""

import numpy as np
import pytest

from paddle_ir.core.errors import ShapeInferenceError
from tests.op_test import append_declared_op, check_grad, check_op

rng = np.random.RandomState(5)


def test_unstack_and_its_gradient():
    x = rng.uniform(-1, 1, (2, 3, 4))
    check_op("unstack", {"X": x}, {"axis": 1, "num": 3},
             {"Y": [x[:, k] for k in range(3)]}, outputs={"Y": 3})
    check_grad("unstack", {"X": x}, {"axis": -1, "num": 4}, out_slot="Y", outputs={"Y": 4})
    with pytest.raises(ShapeInferenceError, match="num \\(2\\) must equal"):
        check_op("unstack", {"X": x}, {"axis": 1, "num": 2}, outputs={"Y": 2})


F, I64 = "float32", "int64"

BUILD_ERRORS = [
    ("unstack", {"X": ([2, 3], F, 0)}, ["Y"], {"axis": 2, "num": 2}, "axis must be in"),
]


@pytest.mark.parametrize("op_type,inputs,outputs,attrs,message", BUILD_ERRORS)
def test_build_time_errors(op_type, inputs, outputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=message):
        append_declared_op(op_type, inputs, outputs, attrs)
