"""LoDTensor: a dense array plus a multi-level LoD (the LoD design seed).

The LoD is stored as **offsets** per level, coarsest level first, as in the
seed's "offset representation": level k's offsets index into the items of
level k+1, and the last level's offsets index rows of the array. The user API
also speaks lengths (`recursive_sequence_lengths`), as Paddle's Python API does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paddle_ir.core.errors import InvalidLoDError

_EMPTY_LOD: tuple = ()


# What Fluid's fluid.lod_tensor module exports (it maps here); LoDTensor is fluid.LoDTensor
__all__ = ["create_lod_tensor", "create_random_int_lodtensor"]


def _as_offsets(level, level_idx: int) -> np.ndarray:
    arr = np.asarray(level)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise InvalidLoDError(
            f"LoD level {level_idx} must be a 1-D list of integer offsets, got {level!r}"
        )
    return arr.astype(np.int64)  # a copy: the tensor owns its LoD, as Fluid's set_lod copies


def validate_offsets(offsets: Sequence[np.ndarray], num_rows: int | None) -> None:
    """Check the offset invariants; raise InvalidLoDError naming level and offset."""
    for k, level in enumerate(offsets):
        if level.size == 0:
            raise InvalidLoDError(f"LoD level {k} is empty; a level holds at least the offset 0")
        if level[0] != 0:
            raise InvalidLoDError(f"LoD level {k} must start at 0, but starts at {int(level[0])}")
        steps = np.diff(level)
        if steps.size and steps.min() < 0:
            i = int(np.argmax(steps < 0)) + 1
            raise InvalidLoDError(
                f"LoD level {k} decreases at offset #{i}: {int(level[i - 1])} -> {int(level[i])}"
            )
        if k + 1 < len(offsets) and offsets[k + 1].size:  # an empty level k+1: its own error, next
            items_below = offsets[k + 1].size - 1
            if int(level[-1]) != items_below:
                raise InvalidLoDError(
                    f"LoD level {k} ends at {int(level[-1])}, but level {k + 1} holds "
                    f"{items_below} sequences; the last offset of a level must equal the "
                    f"number of sequences of the next level"
                )
    if offsets and num_rows is not None and int(offsets[-1][-1]) != num_rows:
        raise InvalidLoDError(
            f"the last LoD level ends at {int(offsets[-1][-1])}, but the tensor has "
            f"{num_rows} rows; the last offset must equal shape[0]"
        )


def lengths_to_offsets(lengths: Sequence[Sequence[int]]) -> list[np.ndarray]:
    out = []
    for k, level in enumerate(lengths):
        arr = np.asarray(level, dtype=np.int64).reshape(-1) if len(level) else np.zeros(0, np.int64)
        if arr.size and arr.min() < 0:
            raise InvalidLoDError(
                f"recursive sequence lengths at level {k} must be >= 0, got {list(level)}"
            )
        offsets = np.empty(arr.size + 1, dtype=np.int64)
        offsets[0] = 0
        np.cumsum(arr, out=offsets[1:])
        out.append(offsets)
    return out


class TensorShape(tuple):
    """A tensor's shape: a tuple, and also callable as Fluid's `tensor.shape()` (a list)."""

    __slots__ = ()

    def __call__(self) -> list[int]:
        return list(self)


class LoDTensor:
    """A dense ndarray with a (possibly empty) multi-level LoD.

    >>> t = create_lod_tensor(np.zeros((6, 1)), [[3, 1, 2]])
    >>> t.lod()
    [[0, 3, 4, 6]]
    """

    __slots__ = ("_array", "_offsets")

    def __init__(self, data=None, lod: Sequence[Sequence[int]] | None = None):
        self._array = np.zeros((0,), np.float32) if data is None else np.asarray(data)
        self._offsets = _EMPTY_LOD
        if lod:
            self.set_lod(lod)

    @classmethod
    def unchecked(cls, array: np.ndarray, offsets: tuple = _EMPTY_LOD) -> LoDTensor:
        """Wrap `array` and its LoD without validating or copying anything.

        The contract: `offsets` is a tuple of int64 offset arrays, one per level, each
        starting at 0, non-decreasing, and ending at the next level's length (the last
        at `array.shape[0]`), as `validate_offsets` checks. For kernels and readers whose
        results are valid by construction; user data goes through the constructor.
        """
        t = cls.__new__(cls)
        t._array = array
        t._offsets = offsets
        return t

    # -- data ------------------------------------------------------------------
    def set(self, data, place=None) -> None:
        """Replace the data (Paddle's `tensor.set(array, place)`) with a copy; the LoD is kept.

        The tensor owns what it holds, as in Fluid (which copies into its own
        buffer): an optimizer updating a parameter in place must never write into
        the caller's array. `place` (a CPUPlace or CUDAPlace) is accepted for
        Fluid's signature; the data stays a numpy array on the CPU.
        """
        array = np.array(data, copy=True)
        if self._offsets:
            if array.ndim == 0:
                raise InvalidLoDError("a 0-D tensor cannot carry a LoD; LoD segments rows")
            validate_offsets(self._offsets, array.shape[0])
        self._array = array

    def numpy(self) -> np.ndarray:
        return self._array

    def __array__(self, dtype=None, copy=None):
        # numpy's protocol: np.array(t) asks for a copy (copy=True) and must get one, or a
        # snapshot `np.array(scope.find_var(w).get_tensor())` would follow the parameter as
        # optimizers update it in place; np.asarray(t) (copy=None) shares the data.
        same = dtype is None or np.dtype(dtype) == self._array.dtype
        if copy is False and not same:
            raise ValueError(f"cannot view a {self._array.dtype} LoDTensor as {np.dtype(dtype)} "
                             "without a copy")
        array = self._array if same else self._array.astype(dtype)
        return array.copy() if copy and array is self._array else array

    @property
    def shape(self) -> TensorShape:
        """The array's shape; `t.shape()` (Fluid) gives it as a list."""
        return TensorShape(self._array.shape)

    def _is_unset(self) -> bool:
        # A LoDTensor() before its first set(): Fluid lets the LoD be given first.
        return self._array.ndim == 1 and self._array.size == 0 and not self._offsets

    @property
    def dtype(self) -> np.dtype:
        return self._array.dtype

    # -- LoD -------------------------------------------------------------------
    @property
    def offsets(self) -> tuple[np.ndarray, ...]:
        """The LoD as a tuple of int64 offset arrays (read-only use)."""
        return self._offsets

    @property
    def lod_level(self) -> int:
        return len(self._offsets)

    def lod(self) -> list[list[int]]:
        return [level.tolist() for level in self._offsets]

    def set_lod(self, lod: Sequence[Sequence[int]]) -> None:
        offsets = tuple(_as_offsets(level, k) for k, level in enumerate(lod))
        if offsets and self._array.ndim == 0:
            raise InvalidLoDError("a 0-D tensor cannot carry a LoD; LoD segments rows")
        rows = None if self._is_unset() else self._array.shape[0]  # checked by set() then
        validate_offsets(offsets, rows)
        self._offsets = offsets

    def recursive_sequence_lengths(self) -> list[list[int]]:
        return [np.diff(level).tolist() for level in self._offsets]

    def set_recursive_sequence_lengths(self, lengths: Sequence[Sequence[int]]) -> None:
        self.set_lod(lengths_to_offsets(lengths))

    def has_valid_recursive_sequence_lengths(self) -> bool:
        if not self._offsets:
            return True
        if self._array.ndim == 0:  # a LoD on a 0-D array: only LoDTensor.unchecked makes one
            return False
        try:
            validate_offsets(self._offsets, self._array.shape[0])
        except InvalidLoDError:
            return False
        return True

    # -- slicing by branch -------------------------------------------------------
    def slice(self, branch: Sequence[int]) -> LoDTensor:
        """The <i, j, ...>-slice of the LoD design: one sub-tree, offsets rebased to 0.

        Choosing item i at level 0, then its j-th child at level 1, and so on,
        keeps the levels from the last chosen one down, each rebased to start at 0.
        """
        branch = list(branch)
        levels = self._offsets
        if not branch or len(branch) > len(levels):
            raise InvalidLoDError(
                f"a branch needs between 1 and {len(levels)} indices for this "
                f"{len(levels)}-level LoD, got {branch}"
            )
        lo = branch[0]
        count = levels[0].size - 1
        if not 0 <= lo < count:
            raise InvalidLoDError(f"branch index {lo} at level 0 is out of range [0, {count})")
        for k in range(1, len(branch)):
            first, end = int(levels[k - 1][lo]), int(levels[k - 1][lo + 1])
            j = branch[k]
            if not 0 <= j < end - first:
                raise InvalidLoDError(
                    f"branch index {j} at level {k} is out of range [0, {end - first})"
                )
            lo = first + j
        hi = lo + 1
        new_levels = []
        for k in range(len(branch) - 1, len(levels)):
            level = levels[k]
            new_levels.append(level[lo : hi + 1] - level[lo])
            lo, hi = int(level[lo]), int(level[hi])
        return LoDTensor.unchecked(self._array[lo:hi], tuple(new_levels))

    def __repr__(self) -> str:
        lod = f", lod={self.lod()}" if self._offsets else ""
        return f"LoDTensor(shape={list(self.shape)}, dtype={self.dtype}{lod})"


_SEQUENCES = (list, tuple, np.ndarray)  # what a list of id sequences may hold


def create_lod_tensor(data, recursive_seq_lens: Sequence[Sequence[int]], place=None) -> LoDTensor:
    """Build a LoDTensor from an array (or a list of id sequences) and lengths.

    As in Paddle, `data` may be a list of sequences of ints, which become an
    int64 column of shape [total, 1]; the lengths must then match the list.
    """
    if isinstance(data, LoDTensor):
        data = data.numpy()
    elif isinstance(data, list) and any(isinstance(s, _SEQUENCES) for s in data):
        kinds = [isinstance(s, _SEQUENCES) for s in data]
        if not all(kinds):
            seq, single = kinds.index(True), kinds.index(False)
            raise InvalidLoDError(
                f"the data mixes sequences and single values: item {seq} is a sequence "
                f"({type(data[seq]).__name__}), item {single} is not "
                f"({type(data[single]).__name__}); a list of id sequences holds only sequences")
        seq_lens = [len(seq) for seq in data]
        if recursive_seq_lens and list(recursive_seq_lens[-1]) != seq_lens:
            raise InvalidLoDError(
                f"the data holds sequences of lengths {seq_lens}, but the last level of "
                f"recursive_seq_lens is {list(recursive_seq_lens[-1])}"
            )
        # Fluid flattens the sequences (lists or 1-D arrays of ids) into one int64 column.
        data = np.concatenate([np.asarray(s, dtype=np.int64).reshape(-1) for s in data])
        data = data.reshape(-1, 1)
    tensor = LoDTensor(np.asarray(data))
    tensor.set_recursive_sequence_lengths(recursive_seq_lens)
    return tensor


def create_random_int_lodtensor(recursive_seq_lens: Sequence[Sequence[int]], base_shape,
                                place=None, low: int = 0, high: int = 1,
                                seed: int | None = None) -> LoDTensor:
    """A LoDTensor of random int64 values in [low, high] (both ends included, as Fluid).

    Its shape is [sum of the last level's lengths] + base_shape.
    """
    rows = int(sum(recursive_seq_lens[-1])) if recursive_seq_lens else 0
    shape = [rows] + [int(d) for d in base_shape]
    data = np.random.default_rng(seed).integers(low, high, size=shape, endpoint=True,
                                                dtype=np.int64)
    return create_lod_tensor(data, recursive_seq_lens, place)
