"""flatten (v1, ops/tensor/shape_v1.py): the matrix view, its LoD rule and its gradient."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op


@pytest.mark.parametrize("axis,rows", [(0, 1), (1, 2), (2, 6), (3, 24)])
def test_flatten_is_the_matrix_view_with_its_gradient(axis, rows):
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    x = np.concatenate([x, x + 24]).reshape(2, 3, 4, 2)
    check_op("flatten", {"X": x}, {"axis": axis}, {"Out": x.reshape(rows, -1)})
    check_grad("flatten", {"X": x}, {"axis": axis})


def test_flatten_keeps_the_lod_when_the_rows_stay():
    x = LoDTensor(np.random.RandomState(0).rand(5, 2, 3))
    x.set_recursive_sequence_lengths([[2, 3]])
    got = check_op("flatten", {"X": x}, {"axis": 1})["Out"][0]
    assert got.recursive_sequence_lengths() == [[2, 3]]
    np.testing.assert_array_equal(np.array(got), np.array(x).reshape(5, 6))


def test_flatten_axis_outside_the_rank_is_named():
    with pytest.raises(PaddleIRError, match=r"axis must be in \[0, 2\]"):
        check_op("flatten", {"X": np.zeros((2, 3))}, {"axis": 3})
