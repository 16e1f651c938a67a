"""libstdc++'s std::nth_element, std::partial_sort and std::sort, step for step, for the
search ops (top_k_v2, kthvalue, mode).

Paddle's CPU top_k kernel (phi/kernels/cpu/top_k_kernel.cc) picks a row's k entries
with std::partial_sort when k * 64 < the row's length, else with std::nth_element at
k - 1 (then std::sort when `sorted`). With sorted=False the order of the k entries is
whatever those algorithms leave, so matching Paddle means running the same
algorithms: introselect (median-of-three pivot, unguarded partition, a heap select
past the depth limit, insertion sort below 4 elements) and the heap operations,
as GCC's <bits/stl_algo.h> and <bits/stl_heap.h> write them (std::sort: introsort
above 16 elements, then a final insertion sort). Only the comparison is called, so
ties and NaNs land where Paddle's do. kthvalue and mode run the same way.
"""

from __future__ import annotations

from collections.abc import Callable

Less = Callable[[object, object], bool]


def _push_heap(a: list, first: int, hole: int, top: int, value, less: Less) -> None:
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _adjust_heap(a: list, first: int, hole: int, length: int, value, less: Less) -> None:
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    _push_heap(a, first, hole, top, value, less)


def _make_heap(a: list, first: int, last: int, less: Less) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a: list, first: int, last: int, result: int, less: Less) -> None:
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, less)


def _heap_select(a: list, first: int, middle: int, last: int, less: Less) -> None:
    _make_heap(a, first, middle, less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            _pop_heap(a, first, middle, i, less)


def _sort_heap(a: list, first: int, last: int, less: Less) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last, less)


def partial_sort(a: list, middle: int, less: Less) -> None:
    """std::partial_sort(a.begin(), a.begin() + middle, a.end(), less), in place."""
    _heap_select(a, 0, middle, len(a), less)
    _sort_heap(a, 0, middle, less)


def _move_median_to_first(a: list, result: int, x: int, y: int, z: int, less: Less) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            pick = y
        elif less(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif less(a[x], a[z]):
        pick = x
    elif less(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a: list, first: int, last: int, pivot: int, less: Less) -> int:
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _insertion_sort(a: list, first: int, last: int, less: Less) -> None:
    if first == last:
        return
    for i in range(first + 1, last):
        value = a[i]
        if less(value, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            j = i
            while less(value, a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = value


def nth_element(a: list, nth: int, less: Less) -> None:
    """std::nth_element(a.begin(), a.begin() + nth, a.end(), less), in place."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)  # 2 * std::__lg(n)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _unguarded_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)


def _unguarded_pivot(a: list, first: int, last: int, less: Less) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _introsort_loop(a: list, first: int, last: int, depth: int, less: Less) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_select(a, first, last, last, less)  # std::__partial_sort(first, last, last)
            _sort_heap(a, first, last, less)
            return
        depth -= 1
        cut = _unguarded_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


_THRESHOLD = 16


def sort(a: list, less: Less) -> None:
    """std::sort(a.begin(), a.end(), less), in place (not stable)."""
    n = len(a)
    if n == 0:
        return
    _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1), less)
    if n > _THRESHOLD:
        _insertion_sort(a, 0, _THRESHOLD, less)
        for i in range(_THRESHOLD, n):  # std::__unguarded_insertion_sort
            value, j = a[i], i
            while less(value, a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = value
    else:
        _insertion_sort(a, 0, n, less)
