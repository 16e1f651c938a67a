"""fc (ops/nn/fc.py): Paddle's fused fully connected op, against numpy: flattening, bias,
the activations, padded weights and the LoD."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError, ShapeInferenceError
from paddle_ir.core.lod_tensor import LoDTensor
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
    ({"W": np.zeros((6, 3, 1), np.float32)}, {}, "W must be 2-D"),
    ({}, {"in_num_col_dims": 2}, "in_num_col_dims must be in"),
    ({"W": np.zeros((5, 3), np.float32)}, {}, "hold 6 values a row but W has 5 rows"),
    ({"Bias": np.zeros((2, 3), np.float32)}, {}, "Bias must be"),
])
def test_bad_slots_and_attributes_are_named(inputs, attrs, message):
    base = {"Input": np.zeros((4, 6), np.float32), "W": np.zeros((6, 3), np.float32)}
    with pytest.raises(ShapeInferenceError, match=message):
        check_op("fc", {**base, **inputs}, attrs, {"Out": np.zeros((4, 3), np.float32)})


@pytest.mark.parametrize("k,act,pad", [(1, "", False), (2, "relu", False), (1, "relu", True)])
def test_fc_matches_numpy(k, act, pad):
    r = np.random.RandomState(12)
    x = r.randn(2, 3, 4)
    cols = int(np.prod(x.shape[k:]))
    w, b = r.randn(cols, 5), r.randn(5)
    want = x.reshape(int(np.prod(x.shape[:k])), cols) @ w + b
    if act == "relu":
        want = np.maximum(want, 0)
    w_in = np.pad(w, ((0, 4), (0, 4)), constant_values=9.0) if pad else w
    check_op("fc", {"Input": x, "W": w_in, "Bias": b},
             {"in_num_col_dims": k, "activation_type": act, "padding_weights": pad},
             {"Out": want.reshape(x.shape[:k] + (5,))})


def test_fc_keeps_the_lod_and_checks_the_weights():
    x = LoDTensor(np.random.RandomState(0).rand(5, 3))
    x.set_recursive_sequence_lengths([[2, 3]])
    got = check_op("fc", {"Input": x, "W": np.ones((3, 2))})["Out"][0]
    assert got.recursive_sequence_lengths() == [[2, 3]]
    with pytest.raises(PaddleIRError, match="hold 3 values a row but W has 4 rows"):
        check_op("fc", {"Input": np.zeros((5, 3)), "W": np.ones((4, 2))})
