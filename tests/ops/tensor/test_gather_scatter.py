"""gather, gather_nd, scatter and their gradients (ops/tensor/gather_scatter.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError, PaddleIRError, ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(9)


def test_gather_with_duplicates():
    x = rng.uniform(-1, 1, (5, 3))
    idx = np.array([4, 0, 4, 2], dtype=np.int64)
    check_op("gather", {"X": x, "Index": idx}, {}, {"Out": np.stack([x[i] for i in idx])})
    check_op("gather", {"X": x, "Index": idx.reshape(-1, 1).astype(np.int32)}, {},
             {"Out": np.stack([x[i] for i in idx])})
    check_grad("gather", {"X": x, "Index": idx})


def test_gather_out_of_range_and_bad_index():
    with pytest.raises(KernelError, match=r"gather: every index must be in \[0, 5\)"):
        check_op("gather", {"X": np.ones((5, 2)), "Index": np.array([5], np.int64)})
    with pytest.raises(ProgramError, match="Index must be int32 or int64"):
        check_op("gather", {"X": np.ones((5, 2)), "Index": np.array([1.0])})


def test_gather_nd():
    x = rng.uniform(-1, 1, (3, 4, 2))
    index = np.array([[[0, 1], [2, 3]], [[1, 1], [0, 1]]], dtype=np.int64)  # [2, 2, 2]
    want = np.empty((2, 2, 2))
    for i in range(2):
        for j in range(2):
            want[i, j] = x[index[i, j, 0], index[i, j, 1]]
    check_op("gather_nd", {"X": x, "Index": index}, {}, {"Out": want})
    check_grad("gather_nd", {"X": x, "Index": index})
    full = np.array([[0, 1, 1], [2, 3, 0]], dtype=np.int32)
    check_op("gather_nd", {"X": x, "Index": full}, {}, {"Out": np.array([x[0, 1, 1],
                                                                          x[2, 3, 0]])})


@pytest.mark.parametrize("overwrite", [True, False])
def test_scatter(overwrite):
    x = rng.uniform(-1, 1, (5, 2))
    ids = np.array([3, 1, 3], dtype=np.int64)
    upd = rng.uniform(-1, 1, (3, 2))
    want = x.copy()
    if overwrite:
        for k, i in enumerate(ids):
            want[i] = upd[k]
    else:
        for i in ids:
            want[i] = 0
        for k, i in enumerate(ids):
            want[i] += upd[k]
    check_op("scatter", {"X": x, "Ids": ids, "Updates": upd}, {"overwrite": overwrite},
             {"Out": want})
    check_grad("scatter", {"X": x, "Ids": ids, "Updates": upd}, {"overwrite": overwrite},
               wrt=("X", "Updates"))


def test_scatter_shape_error():
    with pytest.raises(ProgramError, match=r"Updates must be \[N\] \+ X.shape\[1:\]"):
        check_op("scatter", {"X": np.ones((5, 2)), "Ids": np.array([1], np.int64),
                             "Updates": np.ones((1, 3))})


def test_gather_nd_with_an_empty_index_takes_all_of_x_per_row():
    # Failed before the fix: Index [2, 0] was inferred [2, 5, 20], but the kernel wrote
    # X itself ([5, 20]) and the run failed. Paddle 3.3.1 gives [2, 5, 20], X per row.
    x = rng.uniform(-1, 1, (5, 20))
    for index_shape in [(2, 0), (3, 2, 0), (0,)]:
        index = np.zeros(index_shape, dtype=np.int64)
        want = np.empty(index_shape[:-1] + x.shape)
        for i in np.ndindex(*index_shape[:-1]):
            want[i] = x
        check_op("gather_nd", {"X": x, "Index": index}, {}, {"Out": want})
        check_grad("gather_nd", {"X": x, "Index": index})


def test_scatter_nd_add_with_an_empty_index_adds_every_update_to_all_of_x():
    x = rng.uniform(-1, 1, (3, 4))
    upd = rng.uniform(-1, 1, (2, 3, 4))
    index = np.zeros((2, 0), dtype=np.int64)
    check_op("scatter_nd_add", {"X": x, "Index": index, "Updates": upd}, {},
             {"Out": x + upd[0] + upd[1]})
    check_grad("scatter_nd_add", {"X": x, "Index": index, "Updates": upd},
               wrt=("X", "Updates"))


def test_scatter_nd_add():
    x = rng.uniform(-1, 1, (3, 4))
    index = np.array([[1, 2], [0, 0], [1, 2]], dtype=np.int64)
    upd = rng.uniform(-1, 1, 3)
    want = x.copy()
    for k in range(3):
        want[index[k, 0], index[k, 1]] += upd[k]
    check_op("scatter_nd_add", {"X": x, "Index": index, "Updates": upd}, {}, {"Out": want})
    check_grad("scatter_nd_add", {"X": x, "Index": index, "Updates": upd},
               wrt=("X", "Updates"))
    rows = np.array([[2], [2]], dtype=np.int64)
    upd_rows = rng.uniform(-1, 1, (2, 4))
    want = x.copy()
    want[2] += upd_rows.sum(0)
    check_op("scatter_nd_add", {"X": x, "Index": rows, "Updates": upd_rows}, {}, {"Out": want})
    with pytest.raises(ProgramError, match="Updates must have shape"):
        check_op("scatter_nd_add", {"X": x, "Index": rows, "Updates": np.ones((2, 3))})


def test_where_index():
    cond = rng.uniform(0, 1, (3, 4)) > 0.5
    want = np.array([[i, j] for i in range(3) for j in range(4) if cond[i, j]], dtype=np.int64)
    check_op("where_index", {"Condition": cond}, {}, {"Out": want.reshape(-1, 2)})
    check_op("where_index", {"Condition": np.zeros((2, 2), bool)}, {},
             {"Out": np.zeros((0, 2), np.int64)})


F = np.ones((2, 3))


ERROR_CASES = [
    ("gather_nd", {"X": F, "Index": np.zeros((2, 3), np.int64)}, {},
     r"Index.shape\[-1\] = 3 must be <= rank of X \(2\)"),
    ("gather_nd", {"X": F, "Index": np.zeros((2, 1))}, {}, "Index must be int32 or int64"),
    ("gather_nd", {"X": F, "Index": np.array([[5]], np.int64)}, {},
     "gather_nd: Index holds coordinates outside"),
    ("scatter", {"X": F, "Ids": np.array([7], np.int64), "Updates": np.ones((1, 3))}, {},
     r"scatter: every index must be in \[0, 2\)"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
