"""SelectedRows against the SelectedRows seed and MXNet's row_sparse examples."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import InvalidSelectedRowsError


def test_the_seed_example():
    x = pir.SelectedRows(rows=[73, 84], value=np.array([[1, 2], [3, 4]], np.float32),
                         height=100)
    assert x.shape == (100, 2)
    dense = x.to_dense()
    assert dense.shape == (100, 2)
    assert dense[73].tolist() == [1, 2] and dense[84].tolist() == [3, 4]
    assert np.count_nonzero(dense) == 4
    assert x.rows.dtype == np.int64


def test_from_dense_keeps_nonzero_rows_like_row_sparse():
    dense = np.array([[1, 2, 3], [0, 0, 0], [4, 0, 5], [0, 0, 0], [0, 0, 0]], np.float32)
    x = pir.SelectedRows.from_dense(dense)
    assert x.rows.tolist() == [0, 2]
    assert x.value.tolist() == [[1, 2, 3], [4, 0, 5]]
    assert x.height == 5
    np.testing.assert_array_equal(x.to_dense(), dense)


def test_from_dense_three_d():
    dense = np.array([[[1, 0], [0, 2], [3, 4]], [[5, 0], [6, 0], [0, 0]],
                      [[0, 0], [0, 0], [0, 0]]], np.float32)
    x = pir.SelectedRows.from_dense(dense)
    assert x.rows.tolist() == [0, 1]
    assert x.value.tolist() == [[[1, 0], [0, 2], [3, 4]], [[5, 0], [6, 0], [0, 0]]]
    assert x.shape == (3, 3, 2)
    np.testing.assert_array_equal(x.to_dense(), dense)


def test_retain_keeps_listed_rows():
    x = pir.SelectedRows([0, 2, 3], np.array([[1, 2], [3, 4], [5, 6]], np.float32), 5)
    kept = x.retain([0, 1])
    assert kept.rows.tolist() == [0]
    np.testing.assert_array_equal(kept.to_dense(), [[1, 2], [0, 0], [0, 0], [0, 0], [0, 0]])


def test_duplicates_add_when_densified_and_merged():
    x = pir.SelectedRows([7, 2, 7], np.array([[1, 1], [2, 2], [3, 3]], np.float32), 10)
    dense = x.to_dense()
    assert dense[7].tolist() == [4, 4] and dense[2].tolist() == [2, 2]
    merged = x.merge()
    assert merged.rows.tolist() == [2, 7]
    assert merged.value.tolist() == [[2, 2], [4, 4]]
    np.testing.assert_array_equal(merged.to_dense(), dense)


def test_merge_matches_numpy_add_at_on_random_input():
    rng = np.random.RandomState(0)
    rows = rng.randint(0, 50, size=400)
    value = rng.rand(400, 3)
    want = np.zeros((50, 3))
    np.add.at(want, rows, value)
    merged = pir.SelectedRows(rows, value, 50).merge()
    assert np.all(np.diff(merged.rows) > 0)
    np.testing.assert_allclose(merged.to_dense(), want)


def test_empty_selected_rows():
    x = pir.SelectedRows(np.zeros(0, np.int64), np.zeros((0, 4), np.float32), 6)
    assert x.to_dense().shape == (6, 4) and not x.to_dense().any()
    assert x.merge().rows.size == 0


def test_tostype_and_copy():
    x = pir.SelectedRows([1, 4], np.array([[1, 2], [3, 4]], np.float32), 6)
    assert x.tostype("default").shape == (6, 2)
    y = x.tostype("row_sparse")
    y.value[0, 0] = 100
    assert x.value[0, 0] == 1
    np.testing.assert_array_equal(np.asarray(x), x.to_dense())


@pytest.mark.parametrize("rows, value, height, pattern", [
    ([0, 5], np.zeros((2, 2)), 5, r"row 5 is out of range \[0, 5\)"),
    ([-1], np.zeros((1, 2)), 5, r"row -1 is out of range"),
    ([0, 1, 2], np.zeros((2, 2)), 5, r"value has 2 rows but rows lists 3"),
    ([0], np.zeros((1, 2)), -3, r"height must be >= 0"),
    ([0.5], np.zeros((1, 2)), 3, r"rows must be integers"),
])
def test_invalid_selected_rows(rows, value, height, pattern):
    with pytest.raises(InvalidSelectedRowsError, match=pattern):
        pir.SelectedRows(rows, value, height)


def test_retain_out_of_range():
    x = pir.SelectedRows([1], np.ones((1, 2)), 3)
    with pytest.raises(InvalidSelectedRowsError, match="retain row 3"):
        x.retain([3])
