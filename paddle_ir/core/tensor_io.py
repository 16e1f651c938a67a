"""Tensor records in PaddlePaddle's stream layout (little-endian), and parameter files.

    LoDTensor    = u32 version (0) | u64 lod_levels | per level: u64 nbytes, nbytes of u64
                   offsets | dense tensor
    dense tensor = u32 version (0) | i32 desc_size | TensorDesc protobuf | raw data
    SelectedRows = u32 version (0) | u64 nrows | nrows x i64 rows | i64 height | dense tensor
    CSRTensor    = u32 version (0) | i64 height | i64 width | u64 nnz | (height + 1) x i64
                   indptr | nnz x i64 indices | dense tensor of shape [nnz] (the data)

The CSR layout is paddle-ir's own (Paddle has no CSR stream format); it follows
the SelectedRows record: index arrays first, then the values as a dense tensor
record, whose TensorDesc carries the dtype.

A combined parameter file is LoDTensor records back to back, in the sorted
order of the variables' names, with no header; reading must end exactly at
EOF. Every size read from a file is checked against the bytes that remain
before anything is allocated, so a hostile header cannot exhaust memory.
Files are written whole or not at all (`paddle_ir.core.atomic`).
"""

from __future__ import annotations

import io
import math
import os
import struct
from collections.abc import Iterable, Mapping
from typing import BinaryIO

import numpy as np
from google.protobuf.message import DecodeError

from paddle_ir.core.atomic import atomic_write, open_regular
from paddle_ir.core.atomic import atomic_write_many as atomic_write_many  # re-exported
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.dtypes import from_numpy_dtype, to_numpy_dtype
from paddle_ir.core.errors import (
    DataTypeError,
    InvalidCSRError,
    InvalidLoDError,
    InvalidSelectedRowsError,
    TensorFormatError,
)
from paddle_ir.core.lod_tensor import LoDTensor, validate_offsets
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.proto import framework_pb2 as pb

_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_U64 = struct.Struct("<Q")
_I64 = struct.Struct("<q")
MAX_DIMS = 32  # numpy 1.x's limit; Paddle's own tensors have at most 9
_MAX_NBYTES = 2**63 - 1


# --- writing ---------------------------------------------------------------------


def _little_endian(array: np.ndarray) -> np.ndarray:
    if not array.flags.c_contiguous:  # (ascontiguousarray would turn 0-D into 1-D)
        array = np.ascontiguousarray(array)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return array


def _write_dense(out: BinaryIO, array: np.ndarray) -> None:
    array = _little_endian(array)
    desc = pb.TensorDesc(data_type=from_numpy_dtype(array.dtype), dims=list(array.shape))
    desc_bytes = desc.SerializeToString()
    out.write(_U32.pack(0))
    out.write(_I32.pack(len(desc_bytes)))
    out.write(desc_bytes)
    out.write(memoryview(array).cast("B") if array.size else b"")


def write_lod_tensor(out: BinaryIO, tensor: LoDTensor | np.ndarray) -> None:
    if not isinstance(tensor, LoDTensor):
        tensor = LoDTensor.unchecked(np.asarray(tensor))
    out.write(_U32.pack(0))
    out.write(_U64.pack(tensor.lod_level))
    for level in tensor.offsets:
        data = level.astype("<u8").tobytes()
        out.write(_U64.pack(len(data)))
        out.write(data)
    _write_dense(out, tensor.numpy())


def write_selected_rows(out: BinaryIO, sr: SelectedRows) -> None:
    out.write(_U32.pack(0))
    out.write(_U64.pack(sr.rows.size))
    out.write(sr.rows.astype("<i8").tobytes())
    out.write(_I64.pack(sr.height))
    _write_dense(out, sr.value)


def write_csr(out: BinaryIO, csr: CSRTensor) -> None:
    out.write(_U32.pack(0))
    out.write(_I64.pack(csr.shape[0]))
    out.write(_I64.pack(csr.shape[1]))
    out.write(_U64.pack(csr.nnz))
    out.write(csr.indptr.astype("<i8").tobytes())
    out.write(csr.indices.astype("<i8").tobytes())
    _write_dense(out, csr.data)


def serialize_lod_tensor(tensor: LoDTensor | np.ndarray) -> bytes:
    buf = io.BytesIO()
    write_lod_tensor(buf, tensor)
    return buf.getvalue()


def serialize_selected_rows(sr: SelectedRows) -> bytes:
    buf = io.BytesIO()
    write_selected_rows(buf, sr)
    return buf.getvalue()


def serialize_csr(csr: CSRTensor) -> bytes:
    buf = io.BytesIO()
    write_csr(buf, csr)
    return buf.getvalue()


# --- reading -----------------------------------------------------------------------


class _Reader:
    """Reads exact byte counts from bytes or a seekable binary file, tracking what remains."""

    def __init__(self, source, what: str):
        self.what = what
        if isinstance(source, (bytes, bytearray, memoryview)):
            self._view = memoryview(source).cast("B")
            self._file = None
            self.pos, self.end = 0, len(self._view)
        else:
            self._view = None
            self._file = source
            try:
                self.pos = source.tell()
                self.end = source.seek(0, io.SEEK_END)
                source.seek(self.pos)
            except (OSError, AttributeError) as exc:
                raise TensorFormatError(f"{what}: the stream must be seekable ({exc})") from None

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def _need(self, nbytes: int, field: str) -> None:
        if nbytes > self.remaining:
            raise TensorFormatError(
                f"{self.what} is truncated: {field} needs {nbytes} bytes at offset {self.pos}, "
                f"but only {self.remaining} remain"
            )

    def read(self, nbytes: int, field: str) -> bytes | memoryview:
        self._need(nbytes, field)
        if self._view is not None:
            chunk = self._view[self.pos : self.pos + nbytes]
        else:
            chunk = self._file.read(nbytes)
            if len(chunk) != nbytes:  # the file shrank under us
                raise TensorFormatError(f"{self.what} is truncated while reading {field}")
        self.pos += nbytes
        return chunk

    def unpack(self, st: struct.Struct, field: str) -> int:
        return st.unpack(self.read(st.size, field))[0]

    def read_array(self, dtype: np.dtype, shape: tuple[int, ...], field: str) -> np.ndarray:
        """A fresh, writable, aligned array filled straight from the source, no per-element work."""
        if len(shape) > MAX_DIMS:
            raise TensorFormatError(
                f"{self.what}: {field} has {len(shape)} dims; paddle-ir allows at most {MAX_DIMS}")
        nbytes = math.prod(shape) * dtype.itemsize
        self._need(nbytes, field)
        # numpy refuses shapes whose non-zero dims overflow, even when a zero dim makes
        # the array empty: [0, 2**62, 4] describes no bytes but is no tensor either.
        if math.prod(max(d, 1) for d in shape) * dtype.itemsize > _MAX_NBYTES:
            raise TensorFormatError(
                f"{self.what}: {field}: the dims overflow; a tensor holds at most "
                f"2**63 - 1 bytes")
        array = np.empty(shape, dtype=dtype.newbyteorder("<") if dtype.itemsize > 1 else dtype)
        target = memoryview(array.reshape(-1).view(np.uint8)) if array.size else None
        if target is not None:
            if self._view is not None:
                target[:] = self._view[self.pos : self.pos + nbytes]
            elif self._file.readinto(target) != nbytes:
                raise TensorFormatError(f"{self.what} is truncated while reading {field}")
        self.pos += nbytes
        return array.astype(dtype, copy=False) if array.dtype != dtype else array


def _read_version(r: _Reader, field: str) -> None:
    version = r.unpack(_U32, field)
    if version != 0:
        raise TensorFormatError(f"{r.what}: unsupported {field} {version}; only version 0 exists")


def _read_dense(r: _Reader) -> np.ndarray:
    _read_version(r, "tensor version")
    desc_size = r.unpack(_I32, "TensorDesc size")
    if desc_size < 0:
        raise TensorFormatError(f"{r.what}: negative TensorDesc size {desc_size}")
    desc_bytes = bytes(r.read(desc_size, "TensorDesc"))
    desc = pb.TensorDesc()
    try:
        desc.ParseFromString(desc_bytes)
    except DecodeError as exc:
        raise TensorFormatError(
            f"{r.what}: the TensorDesc does not parse ({exc}); an unknown data_type number "
            f"also shows as a missing required field"
        ) from None
    if not desc.HasField("data_type"):
        # proto2 parks an unknown enum number among the unknown fields, leaving
        # data_type unset; without this check it would silently read as BOOL.
        raise TensorFormatError(
            f"{r.what}: the TensorDesc has no known data_type (missing, or a DataType "
            f"number paddle-ir does not know)"
        )
    try:
        dtype = to_numpy_dtype(desc.data_type)
    except DataTypeError as exc:
        raise TensorFormatError(f"{r.what}: {exc.message}") from None
    dims = tuple(desc.dims)
    if any(d < 0 for d in dims):
        raise TensorFormatError(
            f"{r.what}: a stored tensor cannot have unknown dims, got {list(dims)}")
    return r.read_array(dtype, dims, f"tensor data {list(dims)} {dtype}")


def _read_lod_tensor(r: _Reader) -> LoDTensor:
    _read_version(r, "LoDTensor version")
    levels = r.unpack(_U64, "LoD level count")
    if levels * 8 > r.remaining:
        raise TensorFormatError(f"{r.what}: claims {levels} LoD levels; the file is far too short")
    offsets = []
    for k in range(levels):
        nbytes = r.unpack(_U64, f"LoD level {k} size")
        if nbytes % 8:
            raise TensorFormatError(f"{r.what}: LoD level {k} size {nbytes} is not a multiple of 8")
        offsets.append(r.read_array(np.dtype(np.uint64), (nbytes // 8,), f"LoD level {k}"))
    array = _read_dense(r)
    try:
        lod = tuple(level.astype(np.int64) for level in offsets)
        if any((level < 0).any() for level in lod):
            raise InvalidLoDError("a stored LoD offset does not fit in int64")
        if lod and array.ndim == 0:
            raise InvalidLoDError("a 0-D tensor cannot carry a LoD")
        validate_offsets(lod, array.shape[0] if array.ndim else None)
    except InvalidLoDError as exc:
        raise TensorFormatError(f"{r.what}: invalid LoD: {exc.message}") from None
    return LoDTensor.unchecked(array, lod)


def _read_selected_rows(r: _Reader) -> SelectedRows:
    _read_version(r, "SelectedRows version")
    nrows = r.unpack(_U64, "row count")
    rows = r.read_array(np.dtype(np.int64), (nrows,), f"{nrows} rows")
    height = r.unpack(_I64, "height")
    value = _read_dense(r)
    try:
        return SelectedRows(rows, value, height)
    except InvalidSelectedRowsError as exc:
        raise TensorFormatError(f"{r.what}: {exc.message}") from None


def _read_csr(r: _Reader) -> CSRTensor:
    _read_version(r, "CSRTensor version")
    height = r.unpack(_I64, "height")
    width = r.unpack(_I64, "width")
    if height < 0 or width < 0:
        raise TensorFormatError(f"{r.what}: negative CSR shape [{height}, {width}]")
    nnz = r.unpack(_U64, "nnz")
    indptr = r.read_array(np.dtype(np.int64), (height + 1,), f"{height + 1} indptr entries")
    indices = r.read_array(np.dtype(np.int64), (nnz,), f"{nnz} column indices")
    data = _read_dense(r)
    if data.shape != (nnz,):
        raise TensorFormatError(
            f"{r.what}: the data tensor must have shape [{nnz}] (nnz), got {list(data.shape)}")
    try:
        return CSRTensor(data, indices, indptr, (height, width))
    except InvalidCSRError as exc:
        raise TensorFormatError(f"{r.what}: {exc.message}") from None


def deserialize_lod_tensor(data, what: str = "LoDTensor record") -> LoDTensor:
    r = _Reader(data, what)
    tensor = _read_lod_tensor(r)
    _expect_end(r)
    return tensor


def deserialize_selected_rows(data, what: str = "SelectedRows record") -> SelectedRows:
    r = _Reader(data, what)
    sr = _read_selected_rows(r)
    _expect_end(r)
    return sr


def deserialize_csr(data, what: str = "CSRTensor record") -> CSRTensor:
    r = _Reader(data, what)
    csr = _read_csr(r)
    _expect_end(r)
    return csr


def read_lod_tensor(stream: BinaryIO, what: str = "LoDTensor record") -> LoDTensor:
    """Read one record from a stream, leaving it positioned just after the record."""
    return _read_lod_tensor(_Reader(stream, what))


def read_selected_rows(stream: BinaryIO, what: str = "SelectedRows record") -> SelectedRows:
    return _read_selected_rows(_Reader(stream, what))


def read_csr(stream: BinaryIO, what: str = "CSRTensor record") -> CSRTensor:
    return _read_csr(_Reader(stream, what))


def _expect_end(r: _Reader) -> None:
    if r.remaining:
        raise TensorFormatError(f"{r.what} has {r.remaining} unexpected bytes after its end")


# --- files -------------------------------------------------------------------------


def save_lod_tensor(path, tensor: LoDTensor | np.ndarray) -> None:
    atomic_write(path, lambda out: write_lod_tensor(out, tensor))


def load_lod_tensor(path, root=None) -> LoDTensor:
    """The one LoDTensor record of the file `path` (inside `root`, when given)."""
    with open_regular(path, root) as f:
        r = _Reader(f, f"tensor file {os.fspath(path)}")
        tensor = _read_lod_tensor(r)
        _expect_end(r)
        return tensor


def save_combined(path, tensors: Mapping[str, LoDTensor | np.ndarray]) -> None:
    """Paddle's combined parameter file: records in sorted name order, no header."""
    names = sorted(tensors)

    def write(out):
        for name in names:
            write_lod_tensor(out, tensors[name])

    atomic_write(path, write)


def load_combined(path, names: Iterable[str]) -> dict[str, LoDTensor]:
    """Read a combined parameter file holding exactly `names` (in sorted order)."""
    names = sorted(names)
    result: dict[str, LoDTensor] = {}
    with open_regular(path) as f:
        r = _Reader(f, f"parameter file {os.fspath(path)}")
        for i, name in enumerate(names):
            if r.remaining == 0:
                raise TensorFormatError(
                    f"{r.what} ends after {i} of {len(names)} parameters; "
                    f"missing from {name!r} on (expected, in sorted order: {names})"
                )
            r.what = f"parameter file {os.fspath(path)} (record #{i}, {name!r})"
            result[name] = _read_lod_tensor(r)
        if r.remaining:
            raise TensorFormatError(
                f"parameter file {os.fspath(path)} has {r.remaining} bytes after its "
                f"{len(names)} expected parameters; it holds more variables than the program "
                f"declares persistable"
            )
    return result


def scan_combined(path) -> list[tuple[int, LoDTensor]]:
    """Every record of a combined file with its byte size, names unknown (for `dump`)."""
    records = []
    with open_regular(path) as f:
        r = _Reader(f, f"parameter file {os.fspath(path)}")
        while r.remaining:
            start = r.pos
            r.what = f"parameter file {os.fspath(path)} (record #{len(records)})"
            tensor = _read_lod_tensor(r)
            records.append((r.pos - start, tensor))
    return records
