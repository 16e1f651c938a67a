"""LoDTensorArray: a list of LoDTensors read and written by index (Paddle's tensor array).

Loops keep per-step values in arrays: `array_write(x, i, arr)` sets element i,
`array_read(arr, i)` returns it, and a dynamic RNN splits a sequence batch
into one element per time step. Values are never modified in place: writing
returns a new array sharing the other elements, so a value a loop step read
stays what it was when the backward pass reads it again.

An element may be None: in a gradient array, "no gradient reached this
element", which every consumer treats as zeros of the forward element's shape.
The array knows its element dtype even while it has no elements.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor


class LoDTensorArray:
    __slots__ = ("_items", "dtype")

    def __init__(self, items: Iterable[LoDTensor | None] = (), dtype=None):
        self._items = list(items)
        if dtype is None:
            dtype = next((t.dtype for t in self._items if t is not None), np.float32)
        self.dtype = np.dtype(dtype)

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i: int) -> LoDTensor | None:
        return self._items[i]

    def __iter__(self):
        return iter(self._items)

    def items(self) -> list[LoDTensor | None]:
        return list(self._items)

    def written(self, i: int, value: LoDTensor | None) -> LoDTensorArray:
        """A new array with element i set to `value` (grown with None when i >= len)."""
        items = list(self._items)
        if i >= len(items):
            items.extend([None] * (i + 1 - len(items)))
        items[i] = value
        return LoDTensorArray(items, self.dtype)

    def first(self) -> LoDTensor | None:
        """The first element that holds a tensor (what an array's shape is read from)."""
        return next((t for t in self._items if t is not None), None)

    def __repr__(self) -> str:
        shapes = ", ".join("None" if t is None else str(list(t.shape)) for t in self._items)
        return f"LoDTensorArray(dtype={self.dtype}, [{shapes}])"
