"""prelu and maxout (ops/nn/prelu_maxout.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError, ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(37)


def test_maxout():
    x = rng.uniform(-1, 1, (2, 6, 2, 2))
    want = np.stack([x[:, 2 * c:2 * c + 2].max(1) for c in range(3)], 1)
    check_op("maxout", {"X": x}, {"groups": 2}, {"Out": want})
    check_grad("maxout", {"X": x}, {"groups": 2})


@pytest.mark.parametrize("mode, alpha_shape", [("all", (1,)), ("channel", (3,)),
                                               ("element", (3, 2))])
def test_prelu(mode, alpha_shape):
    x = rng.uniform(-1, 1, (4, 3, 2))
    x = np.where(np.abs(x) < 0.05, 0.2, x)
    a = rng.uniform(0.1, 0.5, alpha_shape)
    view = {"all": (), "channel": (1, 3, 1), "element": (1, 3, 2)}[mode]
    want = np.where(x > 0, x, a.reshape(view) * x)
    check_op("prelu", {"X": x, "Alpha": a}, {"mode": mode}, {"Out": want})
    check_grad("prelu", {"X": x, "Alpha": a}, {"mode": mode}, wrt=("X", "Alpha"))


def test_prelu_alpha_size_error():
    with pytest.raises(ProgramError, match="Alpha must hold 3 values for mode 'channel'"):
        check_op("prelu", {"X": np.ones((2, 3)), "Alpha": np.ones(2)}, {"mode": "channel"})


ERROR_CASES = [
    ("maxout", {"X": np.ones((1, 3, 2, 2))}, {"groups": 2},
     "the channel dim 3 must be a multiple of groups 2"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
