"""Tensor records byte for byte (DESIGN.md section 6), round trips, and hostile input."""

import io
import os
import stat
import struct

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core import tensor_io
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import PaddleIRError, TensorFormatError
from paddle_ir.proto import framework_pb2 as pb


def test_lod_tensor_bytes_are_paddles_layout():
    data = np.arange(10, dtype=np.float32).reshape(5, 2)
    t = pir.LoDTensor(data, [[0, 2, 2, 5]])
    raw = tensor_io.serialize_lod_tensor(t)
    assert len(raw) == 106
    desc = pb.TensorDesc(data_type=pb.FP32, dims=[5, 2]).SerializeToString()
    want = (struct.pack("<I", 0) + struct.pack("<Q", 1) + struct.pack("<Q", 32)
            + np.array([0, 2, 2, 5], "<u8").tobytes()
            + struct.pack("<I", 0) + struct.pack("<i", len(desc)) + desc
            + data.astype("<f4").tobytes())
    assert raw == want


def test_selected_rows_bytes_are_paddles_layout():
    sr = pir.SelectedRows([7, 2, 7], np.ones((3, 2), np.float32), 10)
    raw = tensor_io.serialize_selected_rows(sr)
    assert len(raw) == 82
    desc = pb.TensorDesc(data_type=pb.FP32, dims=[3, 2]).SerializeToString()
    want = (struct.pack("<I", 0) + struct.pack("<Q", 3) + np.array([7, 2, 7], "<i8").tobytes()
            + struct.pack("<q", 10) + struct.pack("<I", 0) + struct.pack("<i", len(desc))
            + desc + np.ones(6, "<f4").tobytes())
    assert raw == want
    back = tensor_io.deserialize_selected_rows(raw)
    assert back.rows.tolist() == [7, 2, 7] and back.height == 10
    np.testing.assert_array_equal(back.value, sr.value)


ALL_DTYPES = [np.bool_, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
              np.uint8, np.int8, np.uint16, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_round_trip_every_data_type(dtype):
    rng = np.random.RandomState(1)
    data = (rng.rand(3, 4) * 100).astype(dtype)
    back = tensor_io.deserialize_lod_tensor(tensor_io.serialize_lod_tensor(data))
    assert back.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(back.numpy(), data)
    assert back.numpy().flags.writeable


@pytest.mark.parametrize("data", [np.float32(3.5), np.zeros((0, 3), np.float32),
                                  np.zeros((2, 0, 4), np.int64)],
                         ids=["0-D", "empty", "empty-middle"])
def test_round_trip_odd_shapes(data):
    back = tensor_io.deserialize_lod_tensor(tensor_io.serialize_lod_tensor(np.asarray(data)))
    assert back.shape == np.asarray(data).shape
    np.testing.assert_array_equal(back.numpy(), data)


def test_round_trip_multi_level_lod():
    t = pir.create_lod_tensor(np.arange(30, dtype=np.float64).reshape(15, 2),
                              [[3, 1, 2], [3, 2, 4, 1, 2, 3]])
    back = tensor_io.deserialize_lod_tensor(tensor_io.serialize_lod_tensor(t))
    assert back.lod() == t.lod()
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_stream_reads_leave_position_after_record():
    buf = io.BytesIO()
    tensor_io.write_lod_tensor(buf, np.ones(3, np.float32))
    tensor_io.write_selected_rows(buf, pir.SelectedRows([1], np.ones((1, 2)), 4))
    buf.seek(0)
    assert tensor_io.read_lod_tensor(buf).shape == (3,)
    assert tensor_io.read_selected_rows(buf).height == 4
    assert buf.read() == b""


def _every_truncation(raw, reader):
    for cut in range(len(raw)):
        with pytest.raises(TensorFormatError):
            reader(raw[:cut])


def test_every_truncation_of_a_lod_tensor_is_a_clear_error():
    raw = tensor_io.serialize_lod_tensor(pir.LoDTensor(np.ones((5, 2), np.float32),
                                                       [[0, 2, 2, 5]]))
    _every_truncation(raw, tensor_io.deserialize_lod_tensor)


def test_every_truncation_of_selected_rows_is_a_clear_error():
    raw = tensor_io.serialize_selected_rows(
        pir.SelectedRows([7, 2, 7], np.ones((3, 2), np.float32), 10))
    _every_truncation(raw, tensor_io.deserialize_selected_rows)


def test_truncation_message_says_what_was_expected():
    raw = tensor_io.serialize_lod_tensor(np.ones((4, 4), np.float32))
    with pytest.raises(TensorFormatError, match=r"truncated: tensor data \[4, 4\] float32 "
                                                r"needs 64 bytes .* only 60 remain"):
        tensor_io.deserialize_lod_tensor(raw[:-4])


def _dense_record(desc_bytes, payload=b"", version=0, desc_size=None):
    size = len(desc_bytes) if desc_size is None else desc_size
    return (struct.pack("<I", 0) + struct.pack("<Q", 0) + struct.pack("<I", version)
            + struct.pack("<i", size) + desc_bytes + payload)


def test_wrong_version():
    raw = struct.pack("<I", 1) + b"\0" * 40
    with pytest.raises(TensorFormatError, match="unsupported LoDTensor version 1"):
        tensor_io.deserialize_lod_tensor(raw)
    desc = pb.TensorDesc(data_type=pb.FP32, dims=[1]).SerializeToString()
    with pytest.raises(TensorFormatError, match="unsupported tensor version 7"):
        tensor_io.deserialize_lod_tensor(_dense_record(desc, b"\0" * 4, version=7))


def test_negative_desc_size():
    with pytest.raises(TensorFormatError, match="negative TensorDesc size -5"):
        tensor_io.deserialize_lod_tensor(_dense_record(b"", desc_size=-5))


def test_unknown_dtype():
    desc = pb.TensorDesc(data_type=pb.FP32, dims=[1]).SerializeToString()
    bad = bytes([desc[0], 99]) + desc[2:]  # data_type = 99
    with pytest.raises(TensorFormatError, match="no known data_type"):
        tensor_io.deserialize_lod_tensor(_dense_record(bad, b"\0" * 4))


def test_huge_claimed_size_fails_fast_without_allocating():
    desc = pb.TensorDesc(data_type=pb.FP64, dims=[2**20, 2**20]).SerializeToString()
    with pytest.raises(TensorFormatError, match="needs 8796093022208 bytes"):
        tensor_io.deserialize_lod_tensor(_dense_record(desc, b"\0" * 16))
    huge_lod = struct.pack("<I", 0) + struct.pack("<Q", 2**40)
    with pytest.raises(TensorFormatError, match="claims 1099511627776 LoD levels"):
        tensor_io.deserialize_lod_tensor(huge_lod)
    huge_rows = struct.pack("<I", 0) + struct.pack("<Q", 2**40)
    with pytest.raises(TensorFormatError, match="truncated"):
        tensor_io.deserialize_selected_rows(huge_rows)


def test_trailing_bytes_are_reported():
    raw = tensor_io.serialize_lod_tensor(np.ones(2, np.float32)) + b"xx"
    with pytest.raises(TensorFormatError, match="2 unexpected bytes"):
        tensor_io.deserialize_lod_tensor(raw)


def test_invalid_stored_lod_and_rows():
    t = tensor_io.serialize_lod_tensor(pir.LoDTensor(np.ones((5, 1), np.float32), [[0, 5]]))
    bad = bytearray(t)
    bad[20:28] = struct.pack("<Q", 4)  # last offset 4 != 5 rows
    with pytest.raises(TensorFormatError, match="invalid LoD"):
        tensor_io.deserialize_lod_tensor(bytes(bad))
    sr = bytearray(tensor_io.serialize_selected_rows(pir.SelectedRows([1], np.ones((1, 1)), 3)))
    sr[12:20] = struct.pack("<q", 9)
    with pytest.raises(TensorFormatError, match=r"row 9 is out of range \[0, 3\)"):
        tensor_io.deserialize_selected_rows(bytes(sr))


def test_errors_are_project_errors_not_struct_or_numpy():
    assert issubclass(TensorFormatError, PaddleIRError)


def test_combined_file_sorted_order_and_exact_eof(tmp_path):
    params = {"b": np.ones(3, np.float32), "a": np.arange(4, dtype=np.int64),
              "c": pir.create_lod_tensor(np.zeros((3, 1), np.float32), [[1, 2]])}
    path = tmp_path / "params"
    tensor_io.save_combined(path, params)
    raw = path.read_bytes()
    expected = b"".join(tensor_io.serialize_lod_tensor(params[k]) for k in ("a", "b", "c"))
    assert raw == expected
    back = tensor_io.load_combined(path, ["c", "a", "b"])
    np.testing.assert_array_equal(back["a"].numpy(), params["a"])
    assert back["c"].lod() == [[0, 1, 3]]
    with pytest.raises(TensorFormatError, match="bytes after its 2 expected parameters"):
        tensor_io.load_combined(path, ["a", "b"])
    with pytest.raises(TensorFormatError, match="ends after 3 of 4 parameters"):
        tensor_io.load_combined(path, ["a", "b", "c", "d"])
    path.write_bytes(raw[:-3])
    with pytest.raises(TensorFormatError, match=r"record #2, 'c'.*truncated"):
        tensor_io.load_combined(path, ["a", "b", "c"])


def test_large_tensor_file_round_trip(tmp_path):
    data = np.random.RandomState(0).rand(1000, 256).astype(np.float32)
    path = tmp_path / "w"
    tensor_io.save_lod_tensor(path, data)
    back = tensor_io.load_lod_tensor(path)
    np.testing.assert_array_equal(back.numpy(), data)
    assert back.numpy().flags.c_contiguous and back.numpy().flags.aligned


def test_dims_that_overflow_are_refused_even_when_a_zero_dim_empties_the_tensor():
    # Found by the fuzzer: numpy raised "array is too big" from np.empty.
    desc = pb.TensorDesc(data_type=pb.FP32, dims=[0, 2**62, 4]).SerializeToString()
    with pytest.raises(TensorFormatError, match=r"the dims overflow; a tensor holds at most "
                                                r"2\*\*63 - 1 bytes"):
        tensor_io.deserialize_lod_tensor(_dense_record(desc))
    many = pb.TensorDesc(data_type=pb.FP32, dims=[1] * 33).SerializeToString()
    with pytest.raises(TensorFormatError, match="has 33 dims; paddle-ir allows at most 32"):
        tensor_io.deserialize_lod_tensor(_dense_record(many, b"\0" * 4))


def test_saved_files_get_the_umask_permissions(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        path = tmp_path / "w"
        tensor_io.save_lod_tensor(path, np.ones(2, np.float32))
    finally:
        os.umask(old)
    assert (path.stat().st_mode & 0o777) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["w"]  # no temporary left behind


def _dense_record_of_dims(dims, data_type=pb.FP32, payload=b""):
    desc = pb.TensorDesc(data_type=data_type, dims=dims).SerializeToString()
    return (struct.pack("<I", 0) + struct.pack("<Q", 0) + struct.pack("<I", 0)
            + struct.pack("<i", len(desc)) + desc + payload)


# ----------------------------------------------------------------------------------------------
# Tensor files at the edges mutation testing found untested (docs/testing.md):
# the byte-size limit exactly, CSR records with an empty height or a mis-sized data
# tensor, and serialize_csr itself.


@pytest.mark.parametrize("dims", [[0, 2**61], [2**61, 0, 1]])
def test_dims_of_exactly_two_to_the_63_bytes_overflow(dims):
    """2**61 float32s are 2**63 bytes, one more than a tensor can hold, even beside a 0."""
    with pytest.raises(TensorFormatError, match="the dims overflow; a tensor holds at most"):
        tensor_io.deserialize_lod_tensor(_dense_record_of_dims(dims))


def test_dims_just_under_the_limit_with_a_zero_are_an_empty_tensor():
    t = tensor_io.deserialize_lod_tensor(_dense_record_of_dims([0, 2**61 - 1]))
    assert t.shape == (0, 2**61 - 1) and t.dtype == np.float32


def test_serialize_csr_round_trips():
    csr = CSRTensor.from_dense(np.array([[0, 1.5, 0], [0, 0, 0], [2.0, 0, 3.0]], np.float32))
    raw = tensor_io.serialize_csr(csr)
    assert isinstance(raw, bytes)
    back = tensor_io.deserialize_csr(raw)
    np.testing.assert_array_equal(back.to_dense(), csr.to_dense())
    assert back.shape == (3, 3) and back.dtype == np.float32


def test_a_csr_with_no_rows_round_trips():
    empty = CSRTensor(np.zeros(0, np.float64), np.zeros(0, np.int64), np.zeros(1, np.int64),
                      (0, 4))
    back = tensor_io.deserialize_csr(tensor_io.serialize_csr(empty))
    assert back.shape == (0, 4) and back.nnz == 0


def _csr_record(nnz, data):
    out = io.BytesIO()
    out.write(struct.pack("<I", 0) + struct.pack("<q", 1) + struct.pack("<q", 4)
              + struct.pack("<Q", nnz))
    out.write(np.array([0, nnz], "<i8").tobytes() + np.arange(nnz, dtype="<i8").tobytes())
    tensor_io._write_dense(out, data)  # the data tensor, as write_csr writes it
    return out.getvalue()


@pytest.mark.parametrize("data", [np.ones(3, np.float32), np.ones(1, np.float32),
                                  np.ones((2, 1), np.float32)])
def test_a_csr_data_tensor_of_another_shape_than_nnz_is_refused(data):
    with pytest.raises(TensorFormatError, match=r"the data tensor must have shape \[2\] \(nnz\)"):
        tensor_io.deserialize_csr(_csr_record(2, data))
    assert tensor_io.deserialize_csr(_csr_record(2, np.ones(2, np.float32))).nnz == 2


def test_a_saved_tensor_file_gets_the_permissions_of_any_new_file(tmp_path):
    """0666 less the umask, as open() would give; umask 0 shows every bit."""
    for umask in (0o022, 0):
        old = os.umask(umask)
        try:
            path = tmp_path / f"w{umask}.bin"
            tensor_io.save_lod_tensor(path, np.ones((2, 2), np.float32))
        finally:
            os.umask(old)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~umask
        np.testing.assert_array_equal(tensor_io.load_lod_tensor(path).numpy(), np.ones((2, 2)))
