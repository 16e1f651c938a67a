"""group_norm and instance_norm (ops/nn/group_norm.py)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(37)


def _gn_ref(x, s, b, groups, eps):
    n, c = x.shape[:2]
    out = np.empty_like(x)
    for i in range(n):
        for g in range(groups):
            sl = slice(g * c // groups, (g + 1) * c // groups)
            block = x[i, sl]
            out[i, sl] = (block - block.mean()) / math.sqrt(block.var() + eps)
    return out * s.reshape(1, -1, 1, 1) + b.reshape(1, -1, 1, 1)


def test_group_norm_and_instance_norm():
    x = rng.uniform(-1, 1, (2, 4, 2, 3))
    s, b = rng.uniform(0.5, 1.5, 4), rng.uniform(-1, 1, 4)
    inputs = {"X": x, "Scale": s, "Bias": b}
    out = check_op("group_norm", inputs, {"groups": 2, "epsilon": 1e-5},
                   {"Y": _gn_ref(x, s, b, 2, 1e-5)})
    assert np.asarray(out["Mean"][0]).shape == (2, 2)
    check_grad("group_norm", inputs, {"groups": 2}, wrt=("X", "Scale", "Bias"), out_slot="Y",
               atol=1e-5)
    check_op("instance_norm", inputs, {}, {"Y": _gn_ref(x, s, b, 4, 1e-5)})
    check_grad("instance_norm", inputs, {}, wrt=("X", "Scale", "Bias"), out_slot="Y",
               atol=1e-5)


ERROR_CASES = [
    ("group_norm", {"X": np.ones((1, 3, 2))}, {"groups": 2},
     "channels 3 must be a multiple of groups 2"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
