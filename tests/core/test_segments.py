"""paddle_ir.core.segments: the stable argsort and the row merge behind sparse updates."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paddle_ir.core import segments
from paddle_ir.core.segments import group_by_key, merge_rows, segment_sum, stable_argsort


@settings(max_examples=80, deadline=None)
@given(keys=st.lists(st.integers(0, 40), max_size=60),
       dtype=st.sampled_from([np.int64, np.int32, np.uint64]))
def test_stable_argsort_matches_numpys_stable_argsort(keys, dtype):
    keys = np.array(keys, dtype=dtype)
    order, sorted_keys = stable_argsort(keys)
    np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))
    np.testing.assert_array_equal(sorted_keys, np.sort(keys))
    assert sorted_keys.dtype == keys.dtype


def test_stable_argsort_of_keys_too_large_to_pack_and_of_negative_keys():
    for keys in (np.array([2**62, 5, 2**62, 0], np.int64), np.array([3, -1, 3, -7], np.int64)):
        order, sorted_keys = stable_argsort(keys)
        np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))
        np.testing.assert_array_equal(sorted_keys, keys[order])


def test_merge_rows_adds_duplicates_in_their_order():
    rng = np.random.default_rng(3)
    rows = rng.zipf(1.3, 500) % 40
    value = rng.standard_normal((500, 3)).astype(np.float32)
    unique, sums = merge_rows(rows, value)
    want = {}
    for r, v in zip(rows.tolist(), value, strict=True):  # sequential float32 sums
        want[r] = want[r] + v if r in want else v.copy()
    assert unique.tolist() == sorted(want)
    np.testing.assert_array_equal(sums, np.stack([want[r] for r in unique.tolist()]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64, np.int8,
                                   np.bool_, np.complex64])
def test_segment_sum_direct_loop_equals_scipys_public_route(dtype, monkeypatch):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((30, 2, 3)) * 4).astype(dtype)
    offsets = np.array([0, 4, 4, 11, 30], np.int64)
    order = rng.permutation(30)
    weights = rng.random(30)
    direct = segment_sum(x, offsets, row_order=order)
    direct_w = segment_sum(x, offsets, weights=weights.astype(direct.dtype), row_order=order)
    monkeypatch.setattr(segments, "_matvecs", lambda: None)  # scipy's public route
    public = segment_sum(x, offsets, row_order=order)
    public_w = segment_sum(x, offsets, weights=weights.astype(direct.dtype), row_order=order)
    assert direct.shape == (4, 2, 3) and direct.dtype == public.dtype
    np.testing.assert_array_equal(direct, public)
    np.testing.assert_array_equal(direct_w, public_w)
    want = np.stack([x[order[s:e]].astype(direct.dtype).sum(axis=0)
                     for s, e in zip(offsets[:-1], offsets[1:], strict=True)])
    np.testing.assert_allclose(direct, want, rtol=1e-2 if dtype == np.float16 else 1e-6)


def test_group_by_key_and_already_merged_rows():
    order, unique, offsets = group_by_key(np.array([5, 2, 5, 9, 2, 2]))
    assert unique.tolist() == [2, 5, 9] and offsets.tolist() == [0, 3, 5, 6]
    assert order.tolist() == [1, 4, 5, 0, 2, 3]
    order, unique, offsets = group_by_key(np.zeros(0, np.int64))
    assert order.size == unique.size == 0 and offsets.tolist() == [0]
    rows, value = np.array([1, 4, 7]), np.ones((3, 2), np.float32)
    merged_rows, merged_value = merge_rows(rows, value)  # sorted and unique: copies
    assert merged_rows.tolist() == [1, 4, 7] and merged_value is not value
    assert not np.shares_memory(merged_value, value)
