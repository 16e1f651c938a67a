"""hash (ops/tensor/hash.py) against XXH64 written out here from its specification (so the
xxhash package is checked, not trusted), on rows short and long enough for every branch of
XXH64, with the published digest of "abc" as an anchor."""

import struct

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op

_P1, _P2, _P3 = 11400714785074694791, 14029467366897019727, 1609587929392839161
_P4, _P5, _M = 9650029242287828579, 2870177450012600261, 2 ** 64 - 1


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc, lane):
    return (_rotl((acc + lane * _P2) & _M, 31) * _P1) & _M


def xxh64(data: bytes, seed: int) -> int:
    n, i = len(data), 0

    def u64(k):
        return struct.unpack_from("<Q", data, k)[0]

    if n >= 32:
        v = [(seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed, (seed - _P1) & _M]
        while i + 32 <= n:
            v = [_round(v[j], u64(i + 8 * j)) for j in range(4)]
            i += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
        for lane in v:
            h = ((h ^ _round(0, lane)) * _P1 + _P4) & _M
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while i + 8 <= n:
        h = (_rotl(h ^ _round(0, u64(i)), 27) * _P1 + _P4) & _M
        i += 8
    if i + 4 <= n:
        h = (_rotl(h ^ ((struct.unpack_from("<I", data, i)[0] * _P1) & _M), 23) * _P2 + _P3) & _M
        i += 4
    while i < n:
        h = (_rotl(h ^ ((data[i] * _P5) & _M), 11) * _P1) & _M
        i += 1
    h = ((h ^ (h >> 33)) * _P2) & _M
    h = ((h ^ (h >> 29)) * _P3) & _M
    return h ^ (h >> 32)


def test_the_reference_gives_the_published_digest():
    assert xxh64(b"abc", 0) == 0x44BC2CF5AD770999
    assert xxh64(b"", 0) == 0xEF46DB3751D8E999


@pytest.mark.parametrize("dtype,k", [(np.int64, 1), (np.int32, 3), (np.int64, 5), (np.int32, 9)])
def test_hash_matches_xxh64_per_row_and_seed(dtype, k):
    ids = np.random.RandomState(k).randint(-50, 10 ** 6, (4, k)).astype(dtype)
    num_hash, mod_by = 3, 1000003
    want = np.array([[[xxh64(row.tobytes(), seed) % mod_by] for seed in range(num_hash)]
                     for row in ids], dtype)
    check_op("hash", {"X": ids}, {"num_hash": num_hash, "mod_by": mod_by}, {"Out": want})


def test_hash_keeps_the_lod_and_leading_dims():
    ids = LoDTensor(np.arange(10, dtype=np.int64).reshape(5, 2))
    ids.set_recursive_sequence_lengths([[2, 3]])
    got = check_op("hash", {"X": ids}, {"num_hash": 2, "mod_by": 7})["Out"][0]
    assert got.recursive_sequence_lengths() == [[2, 3]]
    assert np.array(got).shape == (5, 2, 1)
    three = np.arange(12, dtype=np.int32).reshape(2, 3, 2)
    want = np.array([[[[xxh64(three[a, b].tobytes(), 0) % 11]] for b in range(3)]
                     for a in range(2)], np.int32)
    check_op("hash", {"X": three}, {"mod_by": 11}, {"Out": want})


def test_hash_refuses_float_ids():
    with pytest.raises(PaddleIRError, match="X must hold int32 or int64 ids"):
        check_op("hash", {"X": np.zeros((3, 1), np.float32)})
