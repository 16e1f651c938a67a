"""The clip ops (ops/math/clip.py): their errors."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op

F = np.ones((2, 3))


ERROR_CASES = [
    ("clip_by_norm", {"X": F}, {"max_norm": 0.0}, "attr max_norm must be > 0"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
