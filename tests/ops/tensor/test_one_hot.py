"""one_hot and one_hot_v2 (ops/tensor/one_hot.py) with depth given by depth_tensor at run
time, through the memory budget."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError, ResourceLimitError
from tests.op_test import check_op


@pytest.mark.parametrize("op_type,ids", [("one_hot", np.array([[0], [3], [1]], np.int64)),
                                         ("one_hot_v2", np.array([[0, 3], [1, 2]], np.int32))])
def test_depth_tensor_overrides_the_attribute(op_type, ids):
    depth = np.array([5], np.int32)
    flat = ids[..., 0] if op_type == "one_hot" else ids
    want = (flat[..., None] == np.arange(5)).astype(np.float32)
    check_op(op_type, {"X": ids, "depth_tensor": depth}, {"depth": 2}, {"Out": want})


def test_depth_from_a_tensor_is_checked_when_it_runs():
    ids = np.array([[1], [2]], np.int64)
    with pytest.raises(KernelError, match="one_hot: depth must be positive, got 0"):
        check_op("one_hot", {"X": ids, "depth_tensor": np.array([0], np.int32)}, {"depth": 3})
    with pytest.raises(ResourceLimitError, match="one_hot_v2 would allocate"):
        check_op("one_hot_v2", {"X": np.zeros((2 ** 10, 2 ** 10), np.int64),
                                "depth_tensor": np.array([2 ** 30], np.int64)}, {"depth": 3})
