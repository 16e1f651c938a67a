"""Reading .npy and .npz files that come from someone else, without trusting them.

numpy's own `np.load(allow_pickle=False)` never unpickles, but on a damaged
file it fails with whatever its layers raise (zipfile, zlib, tokenize, ...),
and for an .npz member it allocates the array the header claims before it
reads a byte. Here the header is parsed with numpy's literal-only parser, and
then checked before anything is allocated:

- the dtype is a plain one paddle-ir can feed (bool, integers, floats,
  complex, and unicode text for the `NAME.lod` entries); object dtypes would
  need unpickling and are refused;
- the shape's byte count equals the bytes that follow the header exactly;
- an .npz member is stored or deflated, unencrypted, and its declared size is
  within deflate's maximum expansion (about 1032:1) of its compressed size,
  so a member cannot claim more memory than its bytes can honestly produce;
  and all members together declare at most MAX_NPZ_BYTES (4 GiB);
- only regular files are opened (a FIFO would block, /dev/zero never ends).

Every failure is a `FeedError` naming the file (and the entry).
"""

from __future__ import annotations

import math
import os
import tokenize
import zlib
from typing import TYPE_CHECKING, BinaryIO

import numpy as np
from numpy.lib import format as npy_format

from paddle_ir.core.atomic import open_regular
from paddle_ir.core.errors import FeedError, InputFileError
from paddle_ir.core.tensor_io import MAX_DIMS

if TYPE_CHECKING:
    import zipfile

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"
_PLAIN_KINDS = "biufcU"
_DEFLATE_MAX_RATIO = 1032
_MAX_NBYTES = 2**63 - 1
# An absolute cap on what one .npz may inflate to, whatever its compression ratio: a
# 3 MB archive can honestly inflate to 3 GB of zeros.
MAX_NPZ_BYTES = 4 * 2**30
# What numpy's header parser raises on a header that is not a valid dict literal (a
# TypeError when it sorts keys of mixed types).
_HEADER_ERRORS = (ValueError, SyntaxError, tokenize.TokenError, EOFError, UnicodeDecodeError,
                  TypeError)


def _zip_errors() -> tuple[type[BaseException], ...]:
    """What reading a damaged zip archive or member raises (zipfile loads for .npz only)."""
    import zipfile

    return (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError,
            NotImplementedError, ValueError, OSError)


def _pickled(what: str) -> FeedError:
    return FeedError(f"{what} holds pickled Python objects; paddle-ir reads .npy and .npz "
                     f"without unpickling (allow_pickle=False)")


def read_npy(stream: BinaryIO, size: int, what: str) -> np.ndarray:
    """The array of a .npy held in the next `size` bytes of a seekable `stream`.

    The result is a fresh, writable array in C order and native byte order.
    """
    start = stream.tell()
    try:
        version = npy_format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = npy_format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = npy_format.read_array_header_2_0(stream)
        else:
            raise FeedError(f"{what}: .npy format version {version[0]}.{version[1]} is not "
                            f"supported (1.0 and 2.0 are)")
    except _HEADER_ERRORS as exc:
        raise FeedError(f"{what} is not a readable .npy array: {exc}") from None
    if dtype.hasobject:
        raise _pickled(what)
    if dtype.kind not in _PLAIN_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise FeedError(f"{what} holds dtype {dtype}, which cannot be fed; paddle-ir feeds "
                        f"bool, integer, float and complex arrays")
    if len(shape) > MAX_DIMS or math.prod(max(d, 1) for d in shape) * dtype.itemsize \
            > _MAX_NBYTES:
        raise FeedError(f"{what}: the header's shape {list(shape)} is too large for any array")
    header = stream.tell() - start
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes != size - header:
        raise FeedError(f"{what}: the header promises shape {list(shape)} of {dtype} "
                        f"({nbytes} bytes), but {size - header} bytes follow it")
    data = bytearray(nbytes)
    if nbytes and stream.readinto(data) != nbytes:
        raise FeedError(f"{what} is truncated: {nbytes} bytes of data were promised")
    array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    native = dtype.newbyteorder("=")
    if fortran or native != dtype:
        array = array.astype(native, order="C")
    return array


def _open(path: str) -> BinaryIO:
    """A regular file (a FIFO would block, /dev/zero would never end), as a FeedError."""
    try:
        return open_regular(path)
    except FileNotFoundError:
        raise
    except InputFileError as exc:
        raise FeedError(exc.message) from None
    except OSError as exc:
        raise FeedError(f"{path} is not a readable file: {exc}") from None


def _magic(path: str) -> bytes:
    with _open(path) as f:
        return f.read(len(NPY_MAGIC))


def load_npy(path: str) -> np.ndarray:
    """A single .npy array."""
    magic = _magic(path)
    if magic.startswith(ZIP_MAGIC):
        raise FeedError(f"{path} is an .npz archive; pass it with --feeds")
    with _open(path) as f:
        return read_npy(f, os.fstat(f.fileno()).st_size, path)


def _check_member(path: str, info: zipfile.ZipInfo) -> None:
    import zipfile

    what = f"{path}: entry {info.filename!r}"
    if info.flag_bits & 0x1:
        raise FeedError(f"{what} is encrypted")
    if info.compress_type == zipfile.ZIP_STORED:
        if info.file_size != info.compress_size:
            raise FeedError(f"{what} is stored uncompressed but declares {info.file_size} "
                            f"bytes in {info.compress_size}")
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        if info.file_size > _DEFLATE_MAX_RATIO * info.compress_size + 1024:
            raise FeedError(f"{what} declares {info.file_size} bytes from "
                            f"{info.compress_size} compressed bytes, more than deflate can "
                            f"produce; the archive is corrupt or hostile")
    else:
        raise FeedError(f"{what} uses zip compression method {info.compress_type}; "
                        f".npz archives are stored or deflated")


def load_npz_entries(path: str) -> dict[str, np.ndarray]:
    """Entry name (without .npy) -> array, for every member of an .npz archive."""
    magic = _magic(path)
    if magic.startswith(NPY_MAGIC):
        raise FeedError(f"{path} is a single .npy array; pass it with --feed NAME={path}")
    import zipfile  # here, not at import: `paddle-ir run` with .npy feeds needs no zipfile

    entries: dict[str, np.ndarray] = {}
    try:
        with _open(path) as f, zipfile.ZipFile(f) as archive:
            total = sum(info.file_size for info in archive.infolist())
            if total > MAX_NPZ_BYTES:
                raise FeedError(f"{path} declares {total} bytes of arrays, more than the "
                                f"{MAX_NPZ_BYTES} bytes paddle-ir reads from one .npz "
                                f"(npyfile.MAX_NPZ_BYTES)")
            for info in archive.infolist():
                if not info.filename.endswith(".npy"):
                    raise FeedError(f"{path}: entry {info.filename!r} is not an .npy array")
                key = info.filename[:-4]
                if key in entries:
                    raise FeedError(f"{path}: entry {key!r} appears twice")
                _check_member(path, info)
                with archive.open(info) as member:
                    entries[key] = read_npy(member, info.file_size, f"{path}: entry {key!r}")
    except FileNotFoundError:
        raise
    except _zip_errors() as exc:
        raise FeedError(f"{path} is not a readable .npz archive: {exc}") from None
    return entries
