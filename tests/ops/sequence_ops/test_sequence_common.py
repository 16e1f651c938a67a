"""The vectorized segment maxima/minima behind MAX pooling, against per-segment loops."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from paddle_ir.ops.sequence_ops.sequence_common import (
    ranges_to_rows,
    segment_argmax,
    segment_extreme,
)


def offsets_of(lengths):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


@settings(max_examples=60, deadline=None)
@given(lengths=st.lists(st.integers(0, 80), max_size=12), width=st.integers(1, 3),
       seed=st.integers(0, 2**16), integral=st.booleans())
def test_extremes_and_first_argmax_match_loops(lengths, width, seed, integral):
    rng = np.random.RandomState(seed)
    offsets = offsets_of(lengths)
    if integral:  # small ints: many ties
        x = rng.randint(-3, 4, size=(int(offsets[-1]), width)).astype(np.int64)
    else:
        x = rng.standard_normal((int(offsets[-1]), width)).astype(np.float32)
    big, first = segment_argmax(x.astype(np.float64), offsets)
    small = segment_extreme(x, offsets, np.minimum)
    for i, (s, e) in enumerate(zip(offsets[:-1], offsets[1:], strict=True)):
        if s == e:
            assert np.all(big[i] == -np.inf) and np.all(first[i] == -1)
            assert np.all(small[i] == (np.iinfo(x.dtype).max if integral else np.inf))
            continue
        np.testing.assert_array_equal(big[i], x[s:e].max(axis=0))
        np.testing.assert_array_equal(first[i], x[s:e].argmax(axis=0) + s)
        np.testing.assert_array_equal(small[i], x[s:e].min(axis=0))


def test_higher_rank_rows_and_nan():
    x = np.arange(2 * 40 * 3, dtype=np.float64).reshape(40 * 2, 3)[::-1].reshape(40, 2, 3)
    x = np.ascontiguousarray(x)
    x[37, 1, 2] = np.nan
    offsets = offsets_of([35, 5])
    big, first = segment_argmax(x, offsets)
    assert big.shape == first.shape == (2, 2, 3)
    np.testing.assert_array_equal(big[0], x[0])
    np.testing.assert_array_equal(first[0], 0)
    assert np.isnan(big[1, 1, 2]) and first[1, 1, 2] == 35  # NaN: the segment's first row


def test_ranges_to_rows():
    rows = ranges_to_rows(np.array([5, 0, 9]), np.array([2, 0, 3]))
    assert rows.tolist() == [5, 6, 9, 10, 11]
    assert ranges_to_rows(np.array([], np.int64), np.array([], np.int64)).tolist() == []
