"""Tensor files at the edges mutation testing found untested (docs/testing.md):
the byte-size limit exactly, CSR records with an empty height or a mis-sized data
tensor, and serialize_csr itself."""

import io
import os
import stat
import struct

import numpy as np
import pytest

from paddle_ir.core import tensor_io
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import TensorFormatError
from paddle_ir.proto import framework_pb2 as pb


def _dense_record(dims, data_type=pb.FP32, payload=b""):
    desc = pb.TensorDesc(data_type=data_type, dims=dims).SerializeToString()
    return (struct.pack("<I", 0) + struct.pack("<Q", 0) + struct.pack("<I", 0)
            + struct.pack("<i", len(desc)) + desc + payload)


@pytest.mark.parametrize("dims", [[0, 2**61], [2**61, 0, 1]])
def test_dims_of_exactly_two_to_the_63_bytes_overflow(dims):
    """2**61 float32s are 2**63 bytes, one more than a tensor can hold, even beside a 0."""
    with pytest.raises(TensorFormatError, match="the dims overflow; a tensor holds at most"):
        tensor_io.deserialize_lod_tensor(_dense_record(dims))


def test_dims_just_under_the_limit_with_a_zero_are_an_empty_tensor():
    t = tensor_io.deserialize_lod_tensor(_dense_record([0, 2**61 - 1]))
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
