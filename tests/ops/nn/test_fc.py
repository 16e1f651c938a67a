"""fc (ops/nn/fc.py) against numpy: flattening, bias, relu and padded weights."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op


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
    with pytest.raises(PaddleIRError, match="has 3 columns, but W has 4 rows"):
        check_op("fc", {"Input": np.zeros((5, 3)), "W": np.ones((4, 2))})
