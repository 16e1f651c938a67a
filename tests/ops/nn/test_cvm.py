"""cvm (ops/nn/cvm.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op

rng = np.random.RandomState(37)


def test_cvm():
    x = rng.uniform(0, 3, (4, 5))
    cvm = rng.uniform(0, 1, (4, 2))
    want = x.copy()
    want[:, 0] = np.log(x[:, 0] + 1)
    want[:, 1] = np.log(x[:, 1] + 1) - np.log(x[:, 0] + 1)
    check_op("cvm", {"X": x, "CVM": cvm}, {"use_cvm": True}, {"Y": want})
    check_op("cvm", {"X": x, "CVM": cvm}, {"use_cvm": False}, {"Y": x[:, 2:]})


ERROR_CASES = [
    ("cvm", {"X": np.ones(3), "CVM": np.ones((3, 2))}, {}, r"X must be \[N, D\]"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
