"""Core values at the edges mutation testing found untested (docs/testing.md).

SelectedRows validation and conversions, LoDTensor building from two-level lists of id
sequences, and slicing with negative indices.
"""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import InvalidLoDError, InvalidSelectedRowsError

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


# --- LoDTensor ---------------------------------------------------------------------------------


def test_create_lod_tensor_from_id_sequences_with_two_levels():
    # 2 paragraphs of 2 and 1 sentences; the sentences hold 2, 1 and 3 word ids.
    t = pir.create_lod_tensor([[1, 2], [3], [4, 5, 6]], [[2, 1], [2, 1, 3]])
    assert t.numpy().dtype == np.int64 and t.shape == (6, 1)
    np.testing.assert_array_equal(t.numpy().ravel(), [1, 2, 3, 4, 5, 6])
    assert t.lod() == [[0, 2, 3], [0, 2, 3, 6]]
    assert t.slice([0, 1]).numpy().ravel().tolist() == [3]
    with pytest.raises(InvalidLoDError, match=r"sequences of lengths \[2, 1, 3\], but the last "
                                              r"level of recursive_seq_lens is \[2, 1\]"):
        pir.create_lod_tensor([[1, 2], [3], [4, 5, 6]], [[2, 1], [1, 1], [2, 1]])


def test_slice_rejects_negative_indices_at_every_level():
    t = pir.create_lod_tensor(np.arange(6, dtype=np.float32).reshape(6, 1), [[2, 1], [2, 1, 3]])
    with pytest.raises(InvalidLoDError, match=r"branch index -1 at level 0 is out of range"):
        t.slice([-1])
    with pytest.raises(InvalidLoDError, match=r"branch index -1 at level 1 is out of range "
                                              r"\[0, 1\)"):
        t.slice([1, -1])


def test_height_minus_one_is_refused_even_without_rows():
    with pytest.raises(InvalidSelectedRowsError, match="height must be >= 0, got -1"):
        pir.SelectedRows(np.zeros(0, np.int64), np.zeros((0, 2)), -1)
    assert pir.SelectedRows(np.zeros(0, np.int64), np.zeros((0, 2)), 0).shape == (0, 2)


def test_a_lod_with_more_than_256_sequences_is_valid():
    """Offsets compared as numbers, not as objects (ints above 256 are distinct objects)."""
    t = pir.create_lod_tensor(np.zeros((600, 1), np.float32), [[300], [2] * 300])
    assert t.lod()[0] == [0, 300] and t.lod()[1][-1] == 600
    assert t.has_valid_recursive_sequence_lengths()
    with pytest.raises(InvalidLoDError, match="level 0 ends at 299, but level 1 holds 300"):
        t.set_lod([[0, 299], list(range(0, 601, 2))])


@pytest.mark.parametrize("branch", [[3], [4], [-1]])
def test_slice_past_the_last_sequence_is_refused(branch):
    t = pir.create_lod_tensor(np.arange(6, dtype=np.float32).reshape(6, 1), [[2, 1, 3]])
    with pytest.raises(InvalidLoDError, match=rf"branch index {branch[0]} at level 0 is out of "
                                              r"range \[0, 3\)"):
        t.slice(branch)


# --- CSRTensor ---------------------------------------------------------------------------------


@pytest.mark.parametrize("indices, bad", [([1, 5], 5), ([-1, 2], -1), ([0, 3], 3)])
def test_csr_names_the_offending_column_index(indices, bad):
    with pytest.raises(ValueError, match=rf"column index {bad} is out of range \[0, 3\)"):
        CSRTensor([1.0, 2.0], indices, [0, 2], (1, 3))


def test_csr_of_width_zero_is_valid():
    empty = CSRTensor(np.zeros(0), np.zeros(0, np.int64), np.zeros(3, np.int64), (2, 0))
    assert empty.shape == (2, 0) and empty.to_dense().shape == (2, 0)
    with pytest.raises(ValueError, match=r"shape must not be negative, got \[2, -1\]"):
        CSRTensor(np.zeros(0), np.zeros(0, np.int64), np.zeros(3, np.int64), (2, -1))
