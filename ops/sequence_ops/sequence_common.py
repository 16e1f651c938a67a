"""What the sequence ops share: LoD checks with Paddle's messages, and segment helpers.

A "segment" is one sequence of the last LoD level: rows offsets[i] to
offsets[i + 1] of the tensor. Sums over segments go through
`paddle_ir.core.segments.segment_sum` (a CSR product); maxima and minima go
through `segment_extreme` below, which reduces aligned blocks of rows with
one strided numpy pass and only handles the ragged ends separately, because
`np.maximum.reduceat` along axis 0 costs a ufunc call per row.

`keep_per_sequence` and `infer_lod_ids` serve the ops that drop ids from each
sequence (ctc_align, sequence_erase).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError, OpLocation
from paddle_ir.core.lod_tensor import LoDTensor


def lod_feed_hint(name: str, levels: int = 1) -> str:
    """How to give `name` the LoD a sequence op needs: at build time and at run time."""
    lengths = "[[lengths]]" if levels <= 1 else "[" + ", ".join(["[lengths]"] * levels) + "]"
    return (f"declare {name!r} with data(..., lod_level={max(levels, 1)}) and feed it "
            f"create_lod_tensor(data, {lengths}), e.g. [[3, 1, 2]] for 3 sequences of 3, 1 "
            f"and 2 rows")


def require_lod(ctx, slot: str, i: int = 0, exactly: int | None = None) -> int:
    """Input `slot`[i] must carry a LoD (exactly `exactly` levels if given); return its levels.

    The same rule runs at build time (on `lod_level`) and at run time (on the
    value's offsets), so a dense value fed to a sequence op fails either way,
    with Paddle's wording and the fix.
    """
    level = ctx.input_lod_level(slot, i)
    name = ctx.input_names(slot)[i]
    where = "at run time " if ctx.is_runtime else ""
    if level <= 0:
        ctx.fail(f"The LoD level Input({slot}) of {ctx.op_type} should be larger than 0, but "
                 f"{name!r} {where}has lod_level 0 (a plain tensor, not a sequence batch)",
                 hint=lod_feed_hint(name))
    if exactly is not None and level != exactly:
        ctx.fail(f"{ctx.op_type} requires Input({slot}) with exactly {exactly} LoD level(s), "
                 f"got {name!r} {where}with lod_level {level}",
                 hint=lod_feed_hint(name, exactly))
    if not ctx.input_shape(slot, i):  # a parsed program may declare a 0-D sequence
        ctx.fail(f"Input({slot}) of {ctx.op_type} is a sequence batch, so it needs a row "
                 f"dimension, but {name!r} is declared 0-D with lod_level {level}")
    return level


def lod_error(op_type: str, message: str, hint: str | None = None) -> KernelError:
    """A run-time LoD problem found by a kernel; the executor fills in the op's location."""
    return KernelError(message, op=OpLocation(op_type=op_type), hint=hint)


def lengths_of(offsets: np.ndarray) -> np.ndarray:
    return np.diff(offsets)


def offsets_of(lengths: np.ndarray) -> np.ndarray:
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """For each row, the index of the segment holding it."""
    n = offsets.size - 1
    return np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))


def ranges_to_rows(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated aranges [starts[i], starts[i] + lengths[i]) as one int64 index."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    dest_starts = np.zeros(lengths.size, dtype=np.int64)
    np.cumsum(lengths[:-1], out=dest_starts[1:])
    return np.arange(total, dtype=np.int64) + np.repeat(starts - dest_starts, lengths)


def as_rows(x: np.ndarray) -> np.ndarray:
    """x viewed as [rows, features] (a copy only if x is not contiguous)."""
    return x.reshape(x.shape[0], int(np.prod(x.shape[1:], dtype=np.int64)))


# --- segment maxima and minima ------------------------------------------------------------------

_BLOCK = 16


def _identity(ufunc, dtype: np.dtype):
    if dtype.kind == "f":
        return -np.inf if ufunc is np.maximum else np.inf
    info = np.iinfo(dtype)
    return info.min if ufunc is np.maximum else info.max


def _short_ranges(x2, starts, ends, ufunc, identity):
    """Reduce short ranges: bucket them by length (powers of two), gather each bucket.

    A range shorter than its bucket's width repeats its last row, which leaves a
    max or min unchanged, so each bucket is one gather and one strided reduce,
    at most twice the rows it reduces.
    """
    n, width_d = starts.size, x2.shape[1]
    out = np.full((n, width_d), identity, dtype=x2.dtype)
    lengths = ends - starts
    longest = int(lengths.max()) if n else 0
    width = 1
    while width // 2 < longest:
        chosen = np.flatnonzero((lengths > width // 2) & (lengths <= width))
        if chosen.size:
            pos = np.minimum(np.arange(width, dtype=np.int64), lengths[chosen, None] - 1)
            rows = (starts[chosen, None] + pos).reshape(-1)
            out[chosen] = ufunc.reduce(x2[rows].reshape(chosen.size, width, width_d), axis=1)
        width *= 2
    return out


def _extreme(x2, starts, ends, ufunc, identity):
    lengths = ends - starts
    if starts.size == 0 or int(lengths.max()) <= 2 * _BLOCK:
        return _short_ranges(x2, starts, ends, ufunc, identity)
    # Whole blocks of _BLOCK aligned rows reduce in one strided pass; a segment's
    # interior is then a (shorter) segment of block results, reduced recursively.
    num_blocks = x2.shape[0] // _BLOCK
    blocks = ufunc.reduce(x2[: num_blocks * _BLOCK].reshape(num_blocks, _BLOCK, x2.shape[1]),
                          axis=1)
    first_block = -(-starts // _BLOCK)
    end_block = ends // _BLOCK
    has_blocks = first_block < end_block
    interior = _extreme(blocks, np.where(has_blocks, first_block, 0),
                        np.where(has_blocks, end_block, 0), ufunc, identity)
    head_end = np.where(has_blocks, first_block * _BLOCK, ends)
    tail_start = np.where(has_blocks, end_block * _BLOCK, ends)
    head = _short_ranges(x2, starts, head_end, ufunc, identity)
    tail = _short_ranges(x2, tail_start, ends, ufunc, identity)
    return ufunc(ufunc(head, interior, out=head), tail, out=head)


def segment_extreme(x: np.ndarray, offsets: np.ndarray, ufunc=np.maximum) -> np.ndarray:
    """out[i] = ufunc.reduce(x[offsets[i]:offsets[i+1]]) along axis 0 (np.maximum or np.minimum).

    Empty segments give the reduction's identity (-inf / +inf, or the integer
    limits). The result has shape [num_segments] + x.shape[1:].
    """
    x2 = as_rows(x)
    identity = _identity(ufunc, x2.dtype)
    out = _extreme(x2, offsets[:-1], offsets[1:], ufunc, identity)
    return out.reshape((offsets.size - 1,) + x.shape[1:])


def segment_argmax(x: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(max, row) per segment and feature: the row is the first one holding the max (-1 if empty).

    Rows are absolute row indices of x, as Paddle's sequence_pool MaxIndex.
    """
    x2 = as_rows(x)
    n = offsets.size - 1
    best = _extreme(x2, offsets[:-1], offsets[1:], np.maximum, _identity(np.maximum, x2.dtype))
    if x2.shape[0] == 0:
        return best.reshape((n,) + x.shape[1:]), np.full((n,) + x.shape[1:], -1, np.int32)
    lengths = np.diff(offsets)
    row_dtype = np.int32 if x2.shape[0] < 2**31 - 1 else np.int64
    never = np.iinfo(row_dtype).max
    rows = np.arange(x2.shape[0], dtype=row_dtype)[:, None]
    candidates = np.where(x2 == np.repeat(best, lengths, axis=0), rows, never)
    first = _extreme(candidates, offsets[:-1], offsets[1:], np.minimum, never)
    # A NaN max equals no row: report the segment's first row, as a strict `>` scan would.
    first = np.where(first == never, offsets[:-1, None].astype(row_dtype), first)
    first[lengths == 0] = -1
    return best.reshape((n,) + x.shape[1:]), first.astype(np.int32, copy=False).reshape(
        (n,) + x.shape[1:])


# --- ids kept per sequence (ctc_align, sequence_erase) ------------------------------------------

def keep_per_sequence(x: LoDTensor, keep: np.ndarray) -> LoDTensor:
    """The rows of x where `keep` holds, with the last LoD level's lengths shrunk to match."""
    offsets = x.offsets[-1]
    kept = np.bincount(segment_ids(offsets)[keep], minlength=offsets.size - 1)
    return LoDTensor.unchecked(x.numpy()[keep], x.offsets[:-1] + (offsets_of(kept),))


def infer_lod_ids(ctx, slot="Input", out="Output"):
    """Output `out` holds some of input `slot`'s rows (unknown how many) and its LoD levels."""
    require_lod(ctx, slot)
    shape = ctx.input_shape(slot)
    ctx.set_output(out, (-1,) + tuple(shape[1:]), ctx.input_dtype(slot))
    ctx.set_output_lod_level(out, ctx.input_lod_level(slot))
