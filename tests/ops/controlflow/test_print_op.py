"""print (ops/controlflow/print_op.py): its errors."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op

F = np.ones((2, 3))


ERROR_CASES = [
    ("print", {"In": F, "Counter": np.zeros(1, np.int64)}, {"print_phase": "never"},
     "print_phase must be one of forward, backward, both"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)


def test_print_passes_its_input_through_and_counts(capsys):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = check_op("print", {"In": x, "Counter": np.zeros(1, np.int64)},
                   {"message": "seen", "first_n": -1}, {"Out": x})
    assert int(np.asarray(out["CounterOut"][0])[0]) >= 1
    assert "seen" in capsys.readouterr().out
    from tests.op_test import check_grad
    check_grad("print", {"In": x.astype(np.float64), "Counter": np.zeros(1, np.int64)},
               {"print_phase": "forward"}, wrt=("In",))
