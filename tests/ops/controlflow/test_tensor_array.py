"""tensor_array_to_tensor (ops/controlflow/tensor_array.py): its errors."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op

F = np.ones((2, 3))


ERROR_CASES = [
    ("tensor_array_to_tensor", {"X": F}, {}, "X must be a tensor array"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
