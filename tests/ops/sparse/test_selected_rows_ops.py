"""The SelectedRows ops (ops/sparse/selected_rows_ops.py): their errors."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op

F = np.ones((2, 3))


ERROR_CASES = [
    ("merge_selected_rows", {"X": F}, {}, "X must be SELECTED_ROWS, got a LOD_TENSOR"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
