"""fc (ops/nn/fc.py): Paddle's fused fully connected op."""

import numpy as np
import pytest

from paddle_ir.core.errors import ShapeInferenceError
from tests.op_test import check_op

rng = np.random.RandomState(12)


def _ref(x, w, b, k, act):
    rows = x.astype(np.float64).reshape(int(np.prod(x.shape[:k])), -1)
    out = rows @ w.astype(np.float64) + (0 if b is None else b.reshape(-1))
    if act == "relu":
        out = np.maximum(out, 0)
    elif act == "hard_swish":
        out = out * np.minimum(np.maximum(out + 3, 0), 6) / 6
    return out.reshape(*x.shape[:k], w.shape[1]).astype(np.float32)


@pytest.mark.parametrize("act", ["", "relu", "hard_swish"])
@pytest.mark.parametrize("x_shape, k, bias_shape", [((4, 6), 1, (3,)), ((2, 5, 6), 2, (1, 3)),
                                                     ((2, 3, 2), 1, (3,)), ((4, 6), 1, None)])
def test_fc_against_numpy(x_shape, k, bias_shape, act):
    x = rng.randn(*x_shape).astype(np.float32) * 2
    w = rng.randn(int(np.prod(x_shape[k:])), 3).astype(np.float32)
    inputs = {"Input": x, "W": w}
    b = None
    if bias_shape is not None:
        b = inputs["Bias"] = rng.randn(*bias_shape).astype(np.float32)
    check_op("fc", inputs, {"in_num_col_dims": k, "activation_type": act},
             {"Out": _ref(x, w, b, k, act)}, atol=1e-5, rtol=1e-5, batch_unknown=True)


@pytest.mark.parametrize("inputs, attrs, message", [
    ({}, {"activation_type": "gelu"}, "activation_type must be one of"),
    ({}, {"padding_weights": True}, "padding_weights"),
    ({"W": np.zeros((6, 3, 1), np.float32)}, {}, "W must be 2-D"),
    ({}, {"in_num_col_dims": 2}, "in_num_col_dims must be in"),
    ({"W": np.zeros((5, 3), np.float32)}, {}, "hold 6 values a row but W has 5 rows"),
    ({"Bias": np.zeros((2, 3), np.float32)}, {}, "Bias must be"),
])
def test_bad_slots_and_attributes_are_named(inputs, attrs, message):
    base = {"Input": np.zeros((4, 6), np.float32), "W": np.zeros((6, 3), np.float32)}
    with pytest.raises(ShapeInferenceError, match=message):
        check_op("fc", {**base, **inputs}, attrs, {"Out": np.zeros((4, 3), np.float32)})
