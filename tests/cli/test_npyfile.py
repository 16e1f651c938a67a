"""Feed files from strangers: .npy/.npz read without trusting their headers or archives.

The fuzzer found np.load leaking zipfile.BadZipFile, zlib.error, EOFError,
NotImplementedError, OSError and tokenize.TokenError on damaged files, and
the .npz grouping leaking TypeErrors on a height or shape of the wrong rank.
"""

import io
import zipfile

import numpy as np
import pytest

from paddle_ir.cli import feeds, npyfile
from paddle_ir.core.errors import FeedError


def _npy(array) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=True)
    return buf.getvalue()


def _write(tmp_path, name, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def _npz(tmp_path, compressed=False, **arrays) -> str:
    path = tmp_path / "feeds.npz"
    (np.savez_compressed if compressed else np.savez)(path, **arrays)
    return str(path)


def test_plain_arrays_load_in_c_order_and_native_byte_order(tmp_path):
    big = np.arange(6, dtype=">i4").reshape(2, 3)
    loaded = feeds.load_npy(_write(tmp_path, "big.npy", _npy(big)))
    assert loaded.dtype == np.dtype(np.int32) and loaded.flags.c_contiguous
    np.testing.assert_array_equal(loaded, big)
    fortran = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    loaded = feeds.load_npy(_write(tmp_path, "f.npy", _npy(fortran)))
    assert loaded.flags.c_contiguous and loaded.flags.writeable
    np.testing.assert_array_equal(loaded, fortran)
    scalar = feeds.load_npy(_write(tmp_path, "s.npy", _npy(np.float64(2.5))))
    assert scalar.shape == () and scalar == 2.5


@pytest.mark.parametrize("mutate, pattern", [
    (lambda raw: raw[:-4], r"promises shape \[2, 3\] of float32 \(24 bytes\), but 20 bytes "
                           r"follow it"),
    (lambda raw: raw + b"\0" * 8, r"but 32 bytes follow it"),
    (lambda raw: raw.replace(b"'shape': (2, 3)", b"'shape': (2, 3 "), r"is not a readable "
                                                                     r"\.npy array"),
    (lambda raw: raw.replace(b"'shape': (2, 3), ", b"'shape': (0, 2**62, 99)"),
     r"is not a readable \.npy array"),
    (lambda raw: raw.replace(b"'shape': (2, 3), }",
                             b"'shape': (0,99999999999999999999), }"),
     r"shape \[0, 99999999999999999999\] is too large for any array"),
    (lambda raw: raw[:5], r"is not a readable \.npy array"),
    # The 10-minute fuzz run: numpy sorted the header's keys and raised a TypeError.
    (lambda raw: raw.replace(b" 'fortran_order'", b"b'fortran_order'"),
     r"is not a readable \.npy array: '<' not supported"),
    (lambda raw: raw[:6] + b"\x07\x00" + raw[8:], r"\.npy format version 7\.0 is not "
                                                  r"supported"),
])
def test_damaged_npy_headers(tmp_path, mutate, pattern):
    raw = _npy(np.ones((2, 3), np.float32))
    with pytest.raises(FeedError, match=pattern):
        feeds.load_npy(_write(tmp_path, "x.npy", mutate(raw)))


@pytest.mark.parametrize("array, pattern", [
    (np.array([{"a": 1}], dtype=object), r"holds pickled Python objects; paddle-ir reads \.npy "
                                         r"and \.npz without unpickling"),
    (np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")]), r"holds dtype .* which cannot be fed"),
    (np.array(["2020-01-01"], dtype="datetime64[D]"), r"holds dtype datetime64\[D\]"),
])
def test_dtypes_that_cannot_be_fed(tmp_path, array, pattern):
    with pytest.raises(FeedError, match=pattern):
        feeds.load_npy(_write(tmp_path, "x.npy", _npy(array)))


def test_an_npz_given_as_npy_and_the_reverse(tmp_path):
    npz = _npz(tmp_path, x=np.ones(2))
    with pytest.raises(FeedError, match=r"is an \.npz archive; pass it with --feeds"):
        feeds.load_npy(npz)
    npy = _write(tmp_path, "x.npy", _npy(np.ones(2)))
    with pytest.raises(FeedError, match=r"is a single \.npy array; pass it with --feed"):
        feeds.load_npz(npy)


def _flip(raw: bytes, marker: bytes, offset: int) -> bytes:
    at = raw.index(marker) + offset
    return raw[:at] + bytes([raw[at] ^ 0xFF]) + raw[at + 1:]


@pytest.mark.parametrize("compressed, damage, pattern", [
    (False, lambda raw: _flip(raw, b"\x00\x00\x80?", 2), r"not a readable \.npz archive: Bad "
                                                         r"CRC-32"),
    (False, lambda raw: raw[:-30], r"not a readable \.npz archive"),
    (True, lambda raw: _flip(raw, b"x.npy", 30), r"not a readable \.npz archive"),
    (False, lambda raw: raw.replace(b"x.npy", b"x.npz", 1), r"not a readable \.npz archive: "
                                                            r"File name in directory"),
])
def test_damaged_npz_archives(tmp_path, compressed, damage, pattern):
    raw = open(_npz(tmp_path, compressed, x=np.ones((2, 3), np.float32)), "rb").read()
    with pytest.raises(FeedError, match=pattern):
        feeds.load_npz(_write(tmp_path, "bad.npz", damage(raw)))


def test_an_npz_member_cannot_claim_more_than_deflate_can_produce(tmp_path):
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("x.npy", _npy(np.zeros(1000, np.float32)))
    raw = bytearray(path.read_bytes())
    central = raw.index(b"PK\x01\x02")
    raw[central + 24:central + 28] = (10**9).to_bytes(4, "little")  # declared file size
    with pytest.raises(FeedError, match=r"entry 'x.npy' declares 1000000000 bytes from \d+ "
                                        r"compressed bytes, more than deflate can produce"):
        feeds.load_npz(_write(tmp_path, "bomb2.npz", bytes(raw)))


def test_npz_members_must_be_npy_and_unique(tmp_path):
    path = tmp_path / "odd.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", b"hello")
    with pytest.raises(FeedError, match=r"entry 'notes.txt' is not an \.npy array"):
        feeds.load_npz(str(path))
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.npy", _npy(np.ones(1)))
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr("x.npy", _npy(np.ones(2)))
    with pytest.raises(FeedError, match=r"entry 'x' appears twice"):
        feeds.load_npz(str(path))


@pytest.mark.parametrize("entries, pattern", [
    ({"g.rows": np.array([0]), "g.value": np.ones((1, 2)), "g.height": np.array([3, 4])},
     r"g\.height must be a 0-D integer, got int64 of shape \[2\]"),
    ({"g.rows": np.array([0]), "g.value": np.ones((1, 2)), "g.height": np.float64(3)},
     r"g\.height must be a 0-D integer, got float64"),
    ({"c.data": np.ones(1), "c.indices": np.array([0]), "c.indptr": np.array([0, 1]),
      "c.shape": np.int64(3)}, r"c\.shape must be a 1-D integer array, got int64 of shape \[\]"),
])
def test_sparse_entries_of_the_wrong_rank(tmp_path, entries, pattern):
    with pytest.raises(FeedError, match=pattern):
        feeds.load_npz(_npz(tmp_path, **entries))


def test_the_reader_never_allocates_before_checking_the_size():
    huge = _npy(np.ones(2, np.float32)).replace(b"'shape': (2,), ", b"'shape': (2**40,),")
    with pytest.raises(FeedError, match="is not a readable"):
        npyfile.read_npy(io.BytesIO(huge), len(huge), "huge.npy")
    claim = _npy(np.ones(2, np.float32)).replace(b"'shape': (2,), ", b"'shape': (1000000000000,),")
    with pytest.raises(FeedError, match=r"\(4000000000000 bytes\), but \d+ bytes follow it"):
        npyfile.read_npy(io.BytesIO(claim), len(claim), "claim.npy")
