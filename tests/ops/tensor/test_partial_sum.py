"""partial_sum (ops/tensor/partial_sum.py) against numpy slicing, with gradients."""

import numpy as np
import pytest

from tests.op_test import check_grad, check_op


@pytest.mark.parametrize("start,length,cols", [(0, -1, slice(0, 4)), (1, 2, slice(1, 3)),
                                               (-1, 1, slice(3, 4))])
def test_partial_sum_and_its_gradient(start, length, cols):
    r = np.random.RandomState(11)
    xs = [(f"x{i}", r.randn(2, 4)) for i in range(3)]
    want = sum(x[:, cols] for _, x in xs)
    attrs = {"start_index": start, "length": length}
    check_op("partial_sum", {"X": xs}, attrs, {"Out": want})
    check_grad("partial_sum", {"X": xs}, attrs)
