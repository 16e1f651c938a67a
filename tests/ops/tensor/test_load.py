"""load (ops/tensor/load.py): its errors."""

import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op

ERROR_CASES = [
    ("load", {}, {"file_path": ""}, "attr file_path must name a file"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
