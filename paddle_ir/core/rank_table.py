"""LoDRankTable: the sequences of one LoD level, sorted by length (longest first).

A dynamic RNN steps all sequences of a batch together. At step t only the
sequences longer than t take part, and with the sequences sorted by length,
longest first, those are always a prefix of the table: every per-step tensor
(the step input, the memories) holds the rows of that prefix, and a memory is
shrunk to the next step's prefix by dropping rows at its end.

`items` holds (index, length) pairs: the sequence's position in the original
batch and its length in items of the next level. Equal lengths keep their
original order (a stable sort), as Paddle's table does. `coarse_offsets` are
the LoD levels above the table's level, which array_to_lod_tensor restores.
"""

from __future__ import annotations

import numpy as np


class LoDRankTable:
    __slots__ = ("coarse_offsets", "indices", "lengths", "level")

    def __init__(self, lengths, level: int = 0, coarse_offsets: tuple = ()):
        lengths = np.asarray(lengths, dtype=np.int64).reshape(-1)
        order = np.argsort(-lengths, kind="stable")
        self.indices = order.astype(np.int64)
        self.lengths = lengths[order]
        self.level = level
        self.coarse_offsets = tuple(coarse_offsets)

    @classmethod
    def from_offsets(cls, offsets: tuple, level: int) -> LoDRankTable:
        """The table of LoD level `level` of a tensor with these offsets."""
        return cls(np.diff(offsets[level]), level, offsets[:level])

    def items(self) -> list[tuple[int, int]]:
        return list(zip(self.indices.tolist(), self.lengths.tolist(), strict=True))

    def active(self, step: int) -> int:
        """How many sequences are longer than `step` (they are the table's first rows)."""
        return int(np.count_nonzero(self.lengths > step))

    @property
    def max_len(self) -> int:
        return int(self.lengths[0]) if self.lengths.size else 0

    # What the executor reports about the value (the variable's int64 [-1, 2] description).
    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.lengths.size), 2)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.int64)

    def __len__(self) -> int:
        return int(self.lengths.size)

    def __repr__(self) -> str:
        return f"LoDRankTable(level={self.level}, items={self.items()})"

