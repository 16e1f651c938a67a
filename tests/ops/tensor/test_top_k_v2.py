"""top_k_v2 (ops/tensor/top_k_v2.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(31)


# --- top_k_v2 ---------------------------------------------------------------------------

@pytest.mark.parametrize("largest", [True, False])
def test_top_k_v2(largest):
    x = rng.permutation(24).reshape(2, 3, 4).astype("float32")
    order = np.argsort(-x if largest else x, axis=1)[:, :2, :]
    want = np.take_along_axis(x, order, axis=1)
    check_op("top_k_v2", {"X": x}, {"k": 2, "axis": 1, "largest": largest},
             {"Out": want, "Indices": order.astype(np.int64)})
    check_op("top_k_v2", {"X": x, "K": np.array([2], np.int32)},
             {"axis": 1, "largest": largest}, {"Out": want})
    check_grad("top_k_v2", {"X": rng.permutation(12).reshape(3, 4) / 3.0},
               {"k": 2, "largest": largest})


def test_top_k_v2_ties_and_errors():
    x = np.array([[1.0, 3.0, 3.0, 2.0]], np.float32)
    check_op("top_k_v2", {"X": x}, {"k": 2},
             {"Out": np.array([[3.0, 3.0]], np.float32), "Indices": np.array([[1, 2]])})
    with pytest.raises(ProgramError, match="k must be in \\[1, X.shape\\[-1\\]\\]"):
        check_op("top_k_v2", {"X": x}, {"k": 5})


# --- sorted=False: Paddle's order (its exact indices: the op_families fixture) ------------------

@pytest.mark.parametrize("shape,k,axis,largest", [((3, 10), 3, -1, True), ((4, 7), 7, 1, False),
                                                  ((2, 200, 2), 2, 1, True),
                                                  ((5, 40), 6, -1, False)])
def test_unsorted_picks_the_same_entries_as_sorted(shape, k, axis, largest):
    x = np.random.RandomState(9).randint(0, 15, shape).astype(np.float32)  # ties
    attrs = {"k": k, "axis": axis, "largest": largest}
    srt = check_op("top_k_v2", {"X": x}, {**attrs, "sorted": True})
    uns = check_op("top_k_v2", {"X": x}, {**attrs, "sorted": False})
    np.testing.assert_array_equal(np.sort(np.asarray(uns["Out"][0]), axis=axis),
                                  np.sort(np.asarray(srt["Out"][0]), axis=axis))
    idx = np.asarray(uns["Indices"][0])
    np.testing.assert_array_equal(np.take_along_axis(x, idx, axis=axis),
                                  np.asarray(uns["Out"][0]))
