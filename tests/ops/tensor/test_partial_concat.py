"""partial_concat (ops/tensor/partial_concat.py) against numpy slicing, with gradients."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op


@pytest.mark.parametrize("start,length,cols", [(0, -1, slice(0, 5)), (1, 2, slice(1, 3)),
                                               (-2, -1, slice(3, 5)), (-4, 3, slice(1, 4))])
def test_partial_concat_and_its_gradient(start, length, cols):
    r = np.random.RandomState(10)
    xs = [(f"x{i}", r.randn(3, 5)) for i in range(3)]
    want = np.concatenate([x[:, cols] for _, x in xs], axis=1)
    attrs = {"start_index": start, "length": length}
    check_op("partial_concat", {"X": xs}, attrs, {"Out": want})
    check_grad("partial_concat", {"X": xs}, attrs)


def test_partial_concat_bad_range_and_shapes_are_named():
    xs = [("a", np.zeros((2, 4))), ("b", np.zeros((2, 4)))]
    with pytest.raises(PaddleIRError, match="start_index 5 is outside"):
        check_op("partial_concat", {"X": xs}, {"start_index": 5})
    with pytest.raises(PaddleIRError, match="must take 1 to 2 columns"):
        check_op("partial_concat", {"X": xs}, {"start_index": 2, "length": 3})
    with pytest.raises(PaddleIRError, match=r"every X must have X\[0\]'s shape"):
        check_op("partial_concat", {"X": [("a", np.zeros((2, 4))), ("b", np.zeros((2, 3)))]})
