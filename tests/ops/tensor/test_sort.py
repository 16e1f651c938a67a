"""argsort, unique and unique_with_counts (ops/tensor/sort.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(17)


@pytest.mark.parametrize("descending", [False, True])
def test_argsort(descending):
    x = rng.uniform(-1, 1, (3, 5))
    idx = np.array([sorted(range(5), key=lambda j, r=r: -r[j] if descending else r[j])
                    for r in x])
    check_op("argsort", {"X": x}, {"descending": descending},
             {"Out": np.take_along_axis(x, idx, 1), "Indices": idx.astype(np.int64)})
    check_grad("argsort", {"X": x}, {"descending": descending})


def test_unique_first_appearance_order():
    x = np.array([2, 3, 3, 1, 5, 3, 2], dtype=np.int64)
    out, index, count = [], [], []
    for v in x.tolist():
        if v not in out:
            out.append(v)
            count.append(0)
        index.append(out.index(v))
        count[out.index(v)] += 1
    check_op("unique", {"X": x}, {"dtype": 2},
             {"Out": np.array(out), "Index": np.array(index, np.int32)})
    check_op("unique_with_counts", {"X": x}, {"dtype": 3},
             {"Out": np.array(out), "Index": np.array(index, np.int64),
              "Count": np.array(count, np.int64)})


F = np.ones((2, 3))


ERROR_CASES = [
    ("unique", {"X": F}, {}, r"X must be 1-D, got shape \[2, 3\]"),
    ("unique", {"X": np.array([1, 2])}, {"dtype": 5}, "dtype must be int32 or int64"),
    ("argsort", {"X": F}, {"axis": 2}, "axis 2 is out of range for rank 2"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
