"""CSRTensor: the value, its conversions, its record layout, and CSR through programs."""

import io
import struct

import numpy as np
import pytest
import scipy.sparse as sp

import paddle_ir as pir
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import InvalidCSRError, TensorFormatError
from paddle_ir.core.tensor_io import deserialize_csr, read_csr, serialize_csr, write_csr

# The seed's matrix (row_sparse_ndarray.md, "Sparse Operators and Storage Type Inference").
SEED = dict(data=np.array([7, 8, 9], np.float32), indices=[0, 2, 1], indptr=[0, 2, 2, 3],
            shape=(3, 5))
SEED_DENSE = np.array([[7, 0, 8, 0, 0], [0, 0, 0, 0, 0], [0, 9, 0, 0, 0]], np.float32)


def seed_csr() -> CSRTensor:
    return CSRTensor(**SEED)


# --- the value ---------------------------------------------------------------------------


def test_seed_matrix():
    x = seed_csr()
    assert x.shape == (3, 5) and x.nnz == 3 and x.dtype == np.float32 and x.stype == "csr"
    assert x.indices.dtype == np.int64 and x.indptr.dtype == np.int64
    np.testing.assert_array_equal(x.to_dense(), SEED_DENSE)
    np.testing.assert_array_equal(np.asarray(x), SEED_DENSE)
    assert x.row_ids().tolist() == [0, 0, 2]


def test_repeated_columns_add_up_like_scipy():
    x = CSRTensor([1.0, 2.0, 4.0], [3, 3, 0], [0, 2, 3], (2, 4))
    want = sp.csr_matrix((x.data, x.indices, x.indptr), shape=(2, 4)).toarray()
    np.testing.assert_array_equal(x.to_dense(), want)
    assert x.to_dense()[0, 3] == 3.0


def test_empty_and_zero_sized():
    x = CSRTensor(np.zeros(0, np.float64), [], [0, 0, 0], (2, 7))
    assert x.nnz == 0 and x.to_dense().shape == (2, 7) and not x.to_dense().any()
    assert CSRTensor(np.zeros(0), [], [0], (0, 3)).to_dense().shape == (0, 3)


@pytest.mark.parametrize("args, message", [
    (([1.0], [0], [0, 1], (1,)), r"shape must be two integers"),
    (([1.0], [0], [0, 1], (1, -2)), r"shape must not be negative"),
    (([1.0], [0], [0, 1, 1], (1, 3)), r"indptr must have height \+ 1 = 2 entries, got 3"),
    (([1.0], [0], [1, 1], (1, 3)), r"indptr must start at 0, got 1"),
    (([1.0, 2.0], [0, 1], [0, 2, 1], (2, 3)), r"indptr must not decrease, but goes 2 -> 1"),
    (([1.0], [0, 1], [0, 2], (1, 3)), r"data and indices need 2 entries, got 1 and 2"),
    (([1.0], [3], [0, 1], (1, 3)), r"column index 3 is out of range \[0, 3\)"),
    (([1.0], [-1], [0, 1], (1, 3)), r"column index -1 is out of range"),
    (([1.0], [0.5], [0, 1], (1, 3)), r"indices must hold integers, got dtype float64"),
    (([[1.0]], [0], [0, 1], (1, 3)), r"data must be 1-D"),
    (([1.0], [[0]], [0, 1], (1, 3)), r"indices must be 1-D"),
])
def test_invalid_csr_is_rejected_with_a_clear_message(args, message):
    with pytest.raises(InvalidCSRError, match=message):
        CSRTensor(*args)


def test_scipy_round_trip_and_dense_round_trip():
    rng = np.random.RandomState(0)
    m = sp.random(6, 9, density=0.3, format="csr", random_state=rng, dtype=np.float64)
    x = CSRTensor.from_scipy(m)
    np.testing.assert_array_equal(x.to_dense(), m.toarray())
    np.testing.assert_array_equal(x.to_scipy().toarray(), m.toarray())
    np.testing.assert_array_equal(CSRTensor.from_scipy(m.tocoo()).to_dense(), m.toarray())
    y = CSRTensor.from_dense(m.toarray())
    np.testing.assert_array_equal(y.to_dense(), m.toarray())
    assert y.nnz == m.nnz
    with pytest.raises(InvalidCSRError, match="expected a scipy.sparse matrix"):
        CSRTensor.from_scipy(m.toarray())
    with pytest.raises(InvalidCSRError, match="a CSRTensor is 2-D"):
        CSRTensor.from_dense(np.zeros((2, 2, 2)))


def test_selected_rows_conversions_keep_values_without_densifying():
    x = seed_csr()
    sr = x.to_selected_rows()
    assert sr.rows.tolist() == [0, 2] and sr.height == 3
    np.testing.assert_array_equal(sr.to_dense(), SEED_DENSE)
    back = CSRTensor.from_selected_rows(pir.SelectedRows([2, 0, 2], np.array(
        [[0, 4, 0, 0, 0], [7, 0, 8, 0, 0], [0, 5, 0, 0, 0]], np.float32), 3))
    np.testing.assert_array_equal(back.to_dense(), SEED_DENSE)
    assert back.nnz == 3


def test_copy_is_deep():
    x = seed_csr()
    y = x.copy()
    y.data[0] = 100
    assert x.data[0] == 7 and y is not x


def test_tostype_every_direction():
    x = seed_csr()
    assert isinstance(x.tostype("default"), np.ndarray)
    assert isinstance(x.tostype("row_sparse"), pir.SelectedRows)
    c = x.tostype("csr")
    assert isinstance(c, CSRTensor) and c is not x
    for stype in ("dense", "selected_rows", "csr"):
        np.testing.assert_array_equal(np.asarray(pir.tostype(x, stype)), SEED_DENSE)
        np.testing.assert_array_equal(
            np.asarray(pir.tostype(pir.tostype(SEED_DENSE, stype), "csr")), SEED_DENSE)


# --- the record ----------------------------------------------------------------------------


def test_record_layout():
    raw = serialize_csr(seed_csr())
    version, height, width, nnz = struct.unpack_from("<Iqqq", raw)
    assert (version, height, width, nnz) == (0, 3, 5, 3)
    pos = 4 + 8 * 3
    assert list(struct.unpack_from("<4q", raw, pos)) == [0, 2, 2, 3]
    assert list(struct.unpack_from("<3q", raw, pos + 32)) == [0, 2, 1]
    pos += 32 + 24
    assert struct.unpack_from("<I", raw, pos)[0] == 0  # the data: a dense tensor record
    desc_size = struct.unpack_from("<i", raw, pos + 4)[0]
    desc = pir.framework_pb2.TensorDesc.FromString(raw[pos + 8: pos + 8 + desc_size])
    assert list(desc.dims) == [3] and desc.data_type == pir.framework_pb2.FP32
    assert np.frombuffer(raw[pos + 8 + desc_size:], "<f4").tolist() == [7, 8, 9]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.float16, np.bool_])
def test_round_trip(dtype):
    rng = np.random.RandomState(1)
    dense = (rng.rand(5, 8) > 0.6) * rng.randint(1, 9, size=(5, 8))
    x = CSRTensor.from_dense(dense.astype(dtype))
    y = deserialize_csr(serialize_csr(x))
    assert y.dtype == np.dtype(dtype) and y.shape == x.shape
    np.testing.assert_array_equal(y.indptr, x.indptr)
    np.testing.assert_array_equal(y.indices, x.indices)
    np.testing.assert_array_equal(y.data, x.data)


def test_round_trip_empty_and_stream_position():
    empty = CSRTensor(np.zeros(0, np.float32), [], [0, 0], (1, 4))
    buf = io.BytesIO()
    write_csr(buf, empty)
    write_csr(buf, seed_csr())
    buf.write(b"tail")
    buf.seek(0)
    assert read_csr(buf).nnz == 0
    np.testing.assert_array_equal(read_csr(buf).to_dense(), SEED_DENSE)
    assert buf.read() == b"tail"


def test_every_truncation_is_a_tensor_format_error():
    raw = serialize_csr(seed_csr())
    for n in range(len(raw)):
        with pytest.raises(TensorFormatError, match="truncated"):
            deserialize_csr(raw[:n])


def test_trailing_bytes_are_reported():
    with pytest.raises(TensorFormatError, match="2 unexpected bytes"):
        deserialize_csr(serialize_csr(seed_csr()) + b"\0\0")


def _patch(raw: bytes, offset: int, fmt: str, value) -> bytes:
    out = bytearray(raw)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def test_corrupt_records():
    raw = serialize_csr(seed_csr())
    with pytest.raises(TensorFormatError, match="unsupported CSRTensor version 3"):
        deserialize_csr(_patch(raw, 0, "<I", 3))
    with pytest.raises(TensorFormatError, match=r"negative CSR shape \[-3, 5\]"):
        deserialize_csr(_patch(raw, 4, "<q", -3))
    # A huge claimed height fails on the size check, before anything is allocated.
    with pytest.raises(TensorFormatError, match="truncated: .*indptr entries needs"):
        deserialize_csr(_patch(raw, 4, "<q", 2**60))
    with pytest.raises(TensorFormatError, match="truncated: .*column indices needs"):
        deserialize_csr(_patch(raw, 20, "<Q", 2**61))
    # A column index past the width, and an indptr that decreases.
    with pytest.raises(TensorFormatError, match=r"column index 9 is out of range \[0, 5\)"):
        deserialize_csr(_patch(raw, 28 + 32 + 8, "<q", 9))
    with pytest.raises(TensorFormatError, match="indptr must not decrease"):
        deserialize_csr(_patch(raw, 28 + 8, "<q", 3))


def test_data_tensor_must_hold_nnz_values():
    x = seed_csr()
    raw = serialize_csr(x)
    data_at = 28 + 32 + 24
    other = serialize_csr(CSRTensor(np.array([7, 8, 9, 1], np.float32), [0, 2, 1, 4],
                                    [0, 2, 2, 4], (3, 5)))
    spliced = raw[:data_at] + other[28 + 32 + 32:]
    with pytest.raises(TensorFormatError, match=r"data tensor must have shape \[3\] \(nnz\), "
                                                r"got \[4\]"):
        deserialize_csr(spliced)
