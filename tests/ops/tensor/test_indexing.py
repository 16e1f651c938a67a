"""The indexing ops (ops/tensor/indexing.py: take_along_axis index_sample
repeat_interleave multiplex shard_index)."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError, PaddleIRError, ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(127)


def test_take_along_axis_and_index_sample():
    x = rng.uniform(-1, 1, (3, 5))
    idx = rng.randint(0, 5, (3, 2)).astype(np.int64)
    want = np.array([[x[i, idx[i, k]] for k in range(2)] for i in range(3)])
    check_op("take_along_axis", {"Input": x, "Index": idx}, {"Axis": 1}, {"Result": want})
    check_op("index_sample", {"X": x, "Index": idx}, {}, {"Out": want})
    with pytest.raises(ProgramError, match="must have Input's rank"):
        check_op("take_along_axis", {"Input": x, "Index": idx[0]}, {"Axis": 1})


def test_index_sample_gradient_sums_repeated_columns():
    # index_sample had no gradient. Row 0 samples column 3 twice: dX sums both.
    x = rng.uniform(-1, 1, (3, 5))
    idx = np.array([[3, 3, 0], [4, 1, 2], [0, 0, 0]], np.int32)
    check_grad("index_sample", {"X": x, "Index": idx})
    check_grad("index_sample", {"X": x, "Index": idx.astype(np.int64)})


@pytest.mark.parametrize("index, match", [
    (np.array([[0, 5], [1, 1]], np.int64), r"index_sample: Index holds 5, outside X's "
                                           r"columns \[0, 5\)"),
    (np.array([[0, -1], [1, 1]], np.int64), r"Index holds -1, outside X's columns"),
])
def test_index_sample_out_of_range(index, match):
    with pytest.raises(KernelError, match=match):
        check_op("index_sample", {"X": np.ones((2, 5)), "Index": index})


def test_index_sample_rows_must_match_at_run_time():
    # The build sees two unknown row counts; the run's shape rule sees 2 and 3.
    with pytest.raises(ProgramError, match=r"X and Index must have the same rows, got "
                                           r"\[2, 5\] and \[3, 1\]"):
        check_op("index_sample", {"X": np.ones((2, 5)), "Index": np.zeros((3, 1), np.int64)},
                 batch_unknown=True)


def test_repeat_interleave():
    x = rng.uniform(-1, 1, (2, 3))
    want = np.array([[x[i, j // 2] for j in range(6)] for i in range(2)])
    check_op("repeat_interleave", {"X": x}, {"Repeats": 2, "dim": 1}, {"Out": want})
    check_op("repeat_interleave", {"X": x, "RepeatsTensor": np.array([1, 0], np.int64)},
             {"dim": 0}, {"Out": x[:1]})


def test_multiplex():
    xs = [rng.uniform(-1, 1, (4, 3)) for _ in range(3)]
    ids = np.array([[2], [0], [1], [2]], dtype=np.int32)
    want = np.stack([xs[ids[i, 0]][i] for i in range(4)])
    inputs = {"Ids": ids, "X": [(f"x{k}", v) for k, v in enumerate(xs)]}
    check_op("multiplex", inputs, {}, {"Out": want})
    check_grad("multiplex", inputs, wrt=("X",))
    with pytest.raises(KernelError, match=r"Ids must hold 4 indices in \[0, 3\)"):
        check_op("multiplex", {**inputs, "Ids": np.array([[3], [0], [0], [0]], np.int32)})


def test_shard_index():
    x = np.array([[1], [6], [12], [19]], dtype=np.int64)
    size = (20 + 2 - 1) // 2
    want = np.array([[v - size if v // size == 1 else -1] for v in x[:, 0]], np.int64)
    check_op("shard_index", {"X": x}, {"index_num": 20, "nshards": 2, "shard_id": 1},
             {"Out": want})


F = np.ones((2, 3))
I64 = np.array([[0], [1]], np.int64)


ERROR_CASES = [
    ("multiplex", {"Ids": I64, "X": [("a", F)]}, {}, "multiplex needs at least 2 inputs"),
    ("shard_index", {"X": I64}, {"index_num": 4, "nshards": 2, "shard_id": 2},
     "0 <= shard_id < nshards"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
