"""paddle_ir.core.segments: the stable argsort and the row merge behind sparse updates."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from paddle_ir.core.segments import merge_rows, stable_argsort


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
