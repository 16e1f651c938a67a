"""SelectedRows (core/selected_rows.py): building, merging, conversions, validation."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.csr import CSRTensor
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
    ([0, 1], np.zeros((3, 2)), 5, r"value has 3 rows but rows lists 2"),  # more rows
    ([0, 1], np.zeros((3, 2, 4)), 5, r"value has 3 rows but rows lists 2"),  # its dim 0
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


# --- SelectedRows ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_asarray_of_selected_rows_keeps_the_value_dtype(dtype):
    sr = pir.SelectedRows([2, 0, 2], np.ones((3, 2), dtype), 4)
    dense = np.asarray(sr)
    assert dense.dtype == dtype
    np.testing.assert_array_equal(dense, [[1, 1], [0, 0], [2, 2], [0, 0]])
    assert np.asarray(sr, dtype=np.float64).dtype == np.float64


def test_retain_names_a_negative_row_even_beside_a_valid_one():
    sr = pir.SelectedRows([0, 2], np.ones((2, 3), np.float32), 4)
    with pytest.raises(InvalidSelectedRowsError, match=r"retain row -1 is out of range \[0, 4\)"):
        sr.retain([-1, 2])
    with pytest.raises(InvalidSelectedRowsError, match=r"retain row 4 is out of range \[0, 4\)"):
        sr.retain([2, 4])
    kept = sr.retain([2, 3])
    assert kept.rows.tolist() == [2] and kept.height == 4


@pytest.mark.parametrize("height", [2.5, 2.0, "3", True, None])
def test_height_must_be_an_integer(height):
    with pytest.raises(InvalidSelectedRowsError, match="height must be an integer"):
        pir.SelectedRows([0], np.ones((1, 2)), height)


def test_numpy_integer_height_is_accepted():
    sr = pir.SelectedRows([1], np.ones((1, 2)), np.int64(3))
    assert sr.height == 3 and type(sr.height) is int


def test_rows_must_be_one_dimensional():
    with pytest.raises(InvalidSelectedRowsError, match=r"rows must be 1-D, got shape \[1, 2\]"):
        pir.SelectedRows([[0, 1]], np.ones((2, 3)), 3)


def test_rows_must_be_integers():
    with pytest.raises(InvalidSelectedRowsError, match="rows must be integers, got dtype float64"):
        pir.SelectedRows([0.0, 1.0], np.ones((2, 3)), 3)


def test_a_one_dimensional_value_holds_one_scalar_per_row():
    sr = pir.SelectedRows([3, 1], np.array([5.0, 7.0]), 4)
    assert sr.shape == (4,)
    np.testing.assert_array_equal(sr.to_dense(), [0.0, 7.0, 0.0, 5.0])
    with pytest.raises(InvalidSelectedRowsError, match="value must have at least one dimension"):
        pir.SelectedRows([], np.array(1.0), 4)


def test_tostype_csr_converts_a_2d_selected_rows_and_refuses_other_pairings():
    sr = pir.SelectedRows([2, 0], np.array([[0.0, 3.0], [4.0, 0.0]], np.float32), 3)
    csr = sr.tostype("csr")
    assert isinstance(csr, CSRTensor)
    np.testing.assert_array_equal(csr.to_dense(), sr.to_dense())
    three_d = pir.SelectedRows([1], np.ones((1, 2, 2), np.float32), 3)
    with pytest.raises(ValueError, match=r"a CSRTensor is 2-D; the SelectedRows has shape "
                                         r"\[3, 2, 2\]"):
        three_d.tostype("csr")
    with pytest.raises(ValueError, match="unknown storage type 'coo'"):
        sr.tostype("coo")


def test_height_minus_one_is_refused_even_without_rows():
    with pytest.raises(InvalidSelectedRowsError, match="height must be >= 0, got -1"):
        pir.SelectedRows(np.zeros(0, np.int64), np.zeros((0, 2)), -1)
    assert pir.SelectedRows(np.zeros(0, np.int64), np.zeros((0, 2)), 0).shape == (0, 2)


# -- behaviours a fresh mutation sample found untested (issue 30) ---------------------------
@pytest.mark.parametrize("rows, bad", [([0, 7, 3], 7), ([2, -1, 9], -1), ([-4, 1, 12], -4),
                                       ([2, 7, 3], 7)])  # the lowest row in range, not 0
def test_the_out_of_range_error_names_the_row_that_is_out(rows, bad):
    with pytest.raises(InvalidSelectedRowsError, match=rf"^\[\w+\] row {bad} is out of range"
                                                        rf" \[0, 5\)"):
        pir.SelectedRows(rows, np.zeros((3, 2), np.float32), height=5)


def test_repr_shows_rows_height_value_shape_and_dtype():
    small = pir.SelectedRows([4, 1], np.zeros((2, 3), np.float64), height=6)
    assert repr(small) == ("SelectedRows(rows=[4, 1], height=6, value_shape=[2, 3], "
                           "dtype=float64)")
    many = pir.SelectedRows(list(range(9)), np.zeros((9, 1), np.float32), height=9)
    assert repr(many) == "SelectedRows(rows=..., height=9, value_shape=[9, 1], dtype=float32)"


@pytest.mark.parametrize("rows, bad", [([9], 9), ([1, 4, 7], 7), ([5, 2], 5), ([-3, 1], -3),
                                       ([0, 6], 6), ([-1, 0, 8], -1)])
def test_retain_refuses_any_row_past_the_height_not_only_the_first_one_out(rows, bad):
    sr = pir.SelectedRows([0, 2], np.ones((2, 3), np.float32), 4)
    with pytest.raises(InvalidSelectedRowsError,
                       match=rf"retain row {bad} is out of range \[0, 4\)"):
        sr.retain(rows)


def test_from_dense_takes_a_vector_and_refuses_a_scalar():
    """A 1-D array is a column of rows (MXNet's row_sparse of a vector); a 0-D one has no
    rows at all and is refused with the project's error, not an IndexError."""
    sr = pir.SelectedRows.from_dense(np.array([0, 5, 0, 7], np.float32))
    assert sr.rows.tolist() == [1, 3] and sr.height == 4
    np.testing.assert_array_equal(sr.to_dense(), [0, 5, 0, 7])
    for scalar in (np.float32(3), np.array(0.0)):
        with pytest.raises(InvalidSelectedRowsError, match="cannot make a SelectedRows from a "
                                                           "0-D array"):
            pir.SelectedRows.from_dense(scalar)


@pytest.mark.parametrize("row", [2, np.int32(2), np.array(2, np.uint8)])
def test_a_single_row_given_as_a_scalar_is_a_one_row_selected_rows(row):
    """rows=2 (a Python int, a numpy scalar, a 0-D array) is rows=[2], as int64."""
    sr = pir.SelectedRows(row, np.full((1, 3), 5, np.float32), 4)
    assert sr.rows.tolist() == [2] and sr.rows.dtype == np.int64 and sr.rows.ndim == 1
    np.testing.assert_array_equal(sr.to_dense(), [[0] * 3, [0] * 3, [5] * 3, [0] * 3])


def test_a_selected_rows_owns_the_rows_it_checked():
    """The rows are range-checked once, when built: a later write to the caller's int64 array
    must not move a row past the height. The value is kept as given (a view: no invariant of
    its entries to break, and a gradient's values can be large)."""
    rows, value = np.array([1, 3], np.int64), np.ones((2, 2), np.float32)
    x = pir.SelectedRows(rows, value, 4)
    rows[1] = 9
    assert x.rows.tolist() == [1, 3] and x.to_dense()[3].tolist() == [1, 1]
    assert np.shares_memory(x.value, value)


def test_a_misspelled_attribute_is_refused_not_stored():
    """The values live in three slots: setting an attribute that is not one (a typo of
    `height`) fails at once instead of leaving the real one unchanged."""
    x = pir.SelectedRows([1], np.ones((1, 2), np.float32), 4)
    with pytest.raises(AttributeError):
        x.heigth = 9
    assert x.height == 4


# -- each behaviour of the module pinned (issue 30: the class, not the sampled line) ----------
def test_rows_run_up_to_height_minus_one():
    sr = pir.SelectedRows([0, 4], np.array([[1.0], [2.0]]), 5)
    assert sr.rows.tolist() == [0, 4]
    np.testing.assert_array_equal(sr.to_dense()[:, 0], [1, 0, 0, 0, 2])
    with pytest.raises(InvalidSelectedRowsError, match=r"row 0 is out of range \[0, 0\)"):
        pir.SelectedRows([0], np.ones((1, 1)), 0)


def test_a_row_count_mismatch_says_what_the_value_shape_must_be():
    with pytest.raises(InvalidSelectedRowsError, match=(
            r"value has 1 rows but rows lists 2; value.shape must be \[len\(rows\)\] \+ "
            r"dims\[1:\]$")):
        pir.SelectedRows([0, 1], np.ones((1, 3)), 4)


def test_no_rows_need_no_integer_dtype():
    """An empty rows list (numpy reads [] as float64) holds no row to be a non-integer."""
    sr = pir.SelectedRows([], np.zeros((0, 2), np.float32), 3)
    assert sr.rows.dtype == np.int64 and sr.rows.shape == (0,) and sr.shape == (3, 2)


def test_unchecked_wraps_the_given_arrays_as_they_are():
    rows, value = np.array([2, 2], np.int64), np.ones((2, 3), np.float32)
    sr = pir.SelectedRows.unchecked(rows, value, 5)
    assert sr.rows is rows and sr.value is value and sr.height == 5
    assert sr.shape == (5, 3) and sr.dtype == np.float32 and sr.stype == "selected_rows"


def test_from_dense_takes_a_height_and_copies_the_kept_rows():
    dense = np.array([[0, 0], [1, 2], [0, 0]], np.float64)
    sr = pir.SelectedRows.from_dense(dense, height=np.int64(7))
    assert sr.height == 7 and type(sr.height) is int and sr.shape == (7, 2)
    assert sr.rows.tolist() == [1] and sr.rows.dtype == np.int64
    sr.value[0, 0] = 50.0
    assert dense[1, 0] == 1.0
    assert pir.SelectedRows.from_dense(np.zeros((3, 2))).rows.size == 0


def test_merge_keeps_the_height_and_leaves_the_original_as_it_was():
    sr = pir.SelectedRows([3, 1, 3], np.array([[1.0], [2.0], [4.0]]), 9)
    merged = sr.merge()
    assert merged.height == 9 and merged.shape == (9, 1)
    assert merged.rows.tolist() == [1, 3] and merged.value[:, 0].tolist() == [2.0, 5.0]
    assert sr.rows.tolist() == [3, 1, 3] and sr.value[:, 0].tolist() == [1.0, 2.0, 4.0]


def test_retain_keeps_the_selected_rows_own_order_and_duplicates():
    sr = pir.SelectedRows([5, 1, 5, 3], np.array([[1.0], [2.0], [3.0], [4.0]]), 6)
    kept = sr.retain(np.array([[5], [3]]))  # any shape of ids: flattened
    assert kept.rows.tolist() == [5, 5, 3] and kept.value[:, 0].tolist() == [1.0, 3.0, 4.0]
    assert kept.height == 6
    empty = sr.retain([])
    assert empty.rows.size == 0 and empty.value.shape == (0, 1) and empty.height == 6


def test_a_copy_shares_nothing_with_the_original():
    sr = pir.SelectedRows([1, 2], np.ones((2, 2), np.float32), 4)
    dup = sr.copy()
    dup.rows[0], dup.value[0, 0] = 3, 9.0
    assert sr.rows.tolist() == [1, 2] and sr.value[0, 0] == 1.0
    assert dup.height == 4 and dup.rows.tolist() == [3, 2]


def test_repr_lists_up_to_eight_rows():
    eight = pir.SelectedRows(list(range(8)), np.zeros((8, 1), np.float32), height=8)
    assert repr(eight).startswith("SelectedRows(rows=[0, 1, 2, 3, 4, 5, 6, 7], height=8")
