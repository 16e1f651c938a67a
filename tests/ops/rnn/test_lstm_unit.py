"""lstm_unit (ops/rnn/lstm_unit.py): the formulas, gradients and errors."""

import numpy as np
import pytest

from paddle_ir.core.errors import ShapeInferenceError
from tests.op_test import append_declared_op, check_grad, check_op

rng = np.random.RandomState(5)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_lstm_unit_matches_the_formulas_and_its_gradients():
    n, d = 3, 2
    x, c_prev = rng.uniform(-1, 1, (n, 4 * d)), rng.uniform(-1, 1, (n, d))
    i, f, o = sigmoid(x[:, :d]), sigmoid(x[:, d:2 * d] + 0.5), sigmoid(x[:, 2 * d:3 * d])
    g = np.tanh(x[:, 3 * d:])
    c = f * c_prev + i * g
    inputs = {"X": x, "C_prev": c_prev}
    check_op("lstm_unit", inputs, {"forget_bias": 0.5}, {"C": c, "H": o * np.tanh(c)})
    for out in ("H", "C"):
        check_grad("lstm_unit", inputs, {"forget_bias": 0.5}, wrt=("X", "C_prev"),
                   out_slot=out)


F, I64 = "float32", "int64"

BUILD_ERRORS = [
    ("lstm_unit", {"X": ([-1, 6], F, 0), "C_prev": ([-1, 2], F, 0)}, ["C", "H"], {},
     "X must be \\[N, 4D\\] for C_prev \\[N, D\\]"),
]


@pytest.mark.parametrize("op_type,inputs,outputs,attrs,message", BUILD_ERRORS)
def test_build_time_errors(op_type, inputs, outputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=message):
        append_declared_op(op_type, inputs, outputs, attrs)
