"""gru_unit (ops/rnn/gru_unit.py): the formulas, gradients and errors."""

import numpy as np
import pytest

from paddle_ir.core.errors import ShapeInferenceError
from tests.op_test import append_declared_op, check_grad, check_op

rng = np.random.RandomState(5)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def gru_reference(x, h, w, b, origin_mode):
    d = h.shape[1]
    w_gate = w.reshape(-1)[:2 * d * d].reshape(d, 2 * d)     # Paddle's flat-memory split
    w_cand = w.reshape(-1)[2 * d * d:].reshape(d, d)
    pre = x + b
    u = sigmoid(pre[:, :d] + h @ w_gate[:, :d])
    r = sigmoid(pre[:, d:2 * d] + h @ w_gate[:, d:])
    c = np.tanh(pre[:, 2 * d:] + (r * h) @ w_cand)
    new = u * h + (1 - u) * c if origin_mode else (1 - u) * h + u * c
    return np.concatenate([u, r, c], 1), r * h, new


@pytest.mark.parametrize("origin_mode", [False, True])
def test_gru_unit_matches_the_formulas_and_its_gradients(origin_mode):
    n, d = 4, 3
    x, h = rng.uniform(-1, 1, (n, 3 * d)), rng.uniform(-1, 1, (n, d))
    w, b = rng.uniform(-1, 1, (d, 3 * d)), rng.uniform(-1, 1, (1, 3 * d))
    gate, reset, new = gru_reference(x, h, w, b, origin_mode)
    inputs = {"Input": x, "HiddenPrev": h, "Weight": w, "Bias": b}
    check_op("gru_unit", inputs, {"origin_mode": origin_mode},
             {"Gate": gate, "ResetHiddenPrev": reset, "Hidden": new})
    check_grad("gru_unit", inputs, {"origin_mode": origin_mode},
               wrt=("Input", "HiddenPrev", "Weight", "Bias"), out_slot="Hidden")


F, I64 = "float32", "int64"

BUILD_ERRORS = [
    ("gru_unit", {"Input": ([-1, 6], F, 0), "HiddenPrev": ([-1, 2], F, 0),
                  "Weight": ([2, 6], F, 0)}, ["Gate", "ResetHiddenPrev", "Hidden"],
     {"activation": 7}, "activation must be 0 \\(identity\\)"),
    ("gru_unit", {"Input": ([-1, 6], F, 0), "HiddenPrev": ([-1, 2], F, 0),
                  "Weight": ([3, 6], F, 0)}, ["Gate", "ResetHiddenPrev", "Hidden"], {},
     "Weight must be \\[frame_size, frame_size \\* 3\\] = \\[2, 6\\]"),
    ("gru_unit", {"Input": ([-1, 6], F, 0), "HiddenPrev": ([-1, 2], F, 0),
                  "Weight": ([2, 6], F, 0), "Bias": ([1, 5], F, 0)},
     ["Gate", "ResetHiddenPrev", "Hidden"], {}, "Bias must be \\[1, frame_size \\* 3\\]"),
]


@pytest.mark.parametrize("op_type,inputs,outputs,attrs,message", BUILD_ERRORS)
def test_build_time_errors(op_type, inputs, outputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=message):
        append_declared_op(op_type, inputs, outputs, attrs)
