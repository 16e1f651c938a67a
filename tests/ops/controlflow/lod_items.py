"""A nested-list model of LoD items, written apart from the kernels, for the tests of
split_lod_tensor and merge_lod_tensor: an item at level L is a list of its sub-items
down to rows."""

from __future__ import annotations

import numpy as np


def items_of(data: np.ndarray, lod: list[list[int]], level: int) -> list:
    """The items of a LoD tensor at `level` (rows when it has no LoD)."""
    def build(k: int, lo: int, hi: int):
        if k == len(lod):
            return [data[r] for r in range(lo, hi)]
        return [build(k + 1, lod[k][i], lod[k][i + 1]) for i in range(lo, hi)]

    if not lod:
        return [data[r] for r in range(data.shape[0])]
    top = build(0, 0, len(lod[0]) - 1)
    for _ in range(level):
        top = [sub for item in top for sub in item]
    return top


def tensor_of(items: list, levels: int, row_shape, dtype):
    """(data, lod) of `items` that have `levels` LoD levels below them (0: rows)."""
    lod = [[0] for _ in range(levels)]
    rows = []

    def walk(item, k):
        if k == levels:
            rows.append(item)
            return
        lod[k].append(lod[k][-1] + len(item))
        for sub in item:
            walk(sub, k + 1)

    for item in items:
        walk(item, 0)
    data = np.array(rows, dtype=dtype).reshape((len(rows),) + tuple(row_shape))
    return data, lod
