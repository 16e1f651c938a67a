"""similarity_focus (ops/detection/similarity_focus.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op

rng = np.random.RandomState(71)


def test_similarity_focus():
    x = rng.uniform(0, 1, (2, 3, 3, 4))
    want = np.zeros_like(x)
    for n in range(2):
        union = np.zeros((3, 4), bool)
        for index in (0, 2):
            t = x[n, index].copy()
            rows, cols = set(), set()
            for _ in range(3):
                best, pos = -1.0, None
                for r in range(3):
                    for c in range(4):
                        if r not in rows and c not in cols and t[r, c] > best:
                            best, pos = t[r, c], (r, c)
                rows.add(pos[0])
                cols.add(pos[1])
                union[pos] = True
        want[n][:, union] = 1
    check_op("similarity_focus", {"X": x}, {"axis": 1, "indexes": [0, 2]}, {"Out": want})


ERROR_CASES = [
    ("similarity_focus", {"X": np.ones((1, 2, 2, 2))}, {"axis": 1, "indexes": [5]},
     "index 5 is out of range for axis 1"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
