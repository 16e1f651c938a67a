"""ops/tensor/stl_select.py: the contracts of std::nth_element and std::partial_sort hold
on random rows with ties (the exact orders are checked against Paddle's in the op_families
fixture, tests/paddle_format/test_models.py)."""

import numpy as np
import pytest

from paddle_ir.ops.tensor.stl_select import nth_element, partial_sort, sort


def _less(a, b):
    return a[0] < b[0]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 17, 64, 200])
def test_nth_element_places_the_nth_and_splits_around_it(n):
    rng = np.random.RandomState(n)
    for _ in range(20):
        values = rng.randint(0, max(n // 3, 2), n).tolist()  # many ties
        nth = rng.randint(0, n)
        pairs = list(zip(values, range(n), strict=True))
        nth_element(pairs, nth, _less)
        assert sorted(pairs) == sorted(zip(values, range(n), strict=True))  # a permutation
        assert pairs[nth][0] == sorted(values)[nth]
        assert all(p[0] <= pairs[nth][0] for p in pairs[:nth])
        assert all(p[0] >= pairs[nth][0] for p in pairs[nth + 1:])


@pytest.mark.parametrize("n,k", [(1, 1), (10, 3), (65, 1), (300, 4), (50, 50)])
def test_partial_sort_sorts_the_prefix(n, k):
    rng = np.random.RandomState(k)
    values = rng.randint(0, 20, n).tolist()
    pairs = list(zip(values, range(n), strict=True))
    partial_sort(pairs, k, _less)
    assert [p[0] for p in pairs[:k]] == sorted(values)[:k]
    assert sorted(pairs) == sorted(zip(values, range(n), strict=True))


@pytest.mark.parametrize("n", [0, 1, 5, 16, 17, 40, 300])
def test_sort_sorts(n):
    values = np.random.RandomState(n).randint(0, 7, n).tolist()
    pairs = list(zip(values, range(n), strict=True))
    sort(pairs, _less)
    assert [p[0] for p in pairs] == sorted(values)
    assert sorted(pairs) == sorted(zip(values, range(n), strict=True))
