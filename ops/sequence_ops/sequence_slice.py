"""sequence_slice (+ _grad): Out_i = X_i[Offset[i] : Offset[i] + Length[i]]; Out's lengths
= Length. The gradient scatters dOut back into zeros.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import INTS, NUMERIC, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import (
    lengths_of,
    lod_error,
    offsets_of,
    ranges_to_rows,
    require_lod,
)
from paddle_ir.ops.simple_op import register_simple


def _infer_slice(ctx):
    require_lod(ctx, "X")
    for slot in ("Offset", "Length"):
        ctx.enforce(ctx.input_dtype(slot) in INTS, lambda: f"{slot} must be int32 or int64")
    ctx.set_output("Out", (-1,) + tuple(ctx.input_shape("X")[1:]), ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", ctx.input_lod_level("X"))


def _slice_rows(x: LoDTensor, offset, length):
    offsets = x.offsets[-1]
    start = np.asarray(offset.numpy() if isinstance(offset, LoDTensor) else offset).reshape(-1)
    size = np.asarray(length.numpy() if isinstance(length, LoDTensor) else length).reshape(-1)
    lens = lengths_of(offsets)
    if start.size != lens.size or size.size != lens.size:
        raise lod_error("sequence_slice", f"Offset and Length need one entry per sequence "
                        f"({lens.size}), got {start.size} and {size.size}")
    if (start < 0).any() or (size < 0).any() or (start + size > lens).any():
        raise lod_error("sequence_slice", "each slice [Offset, Offset + Length) must lie "
                        f"inside its sequence; lengths {lens.tolist()}, offsets "
                        f"{start.tolist()}, slice lengths {size.tolist()}")
    return ranges_to_rows(offsets[:-1] + start.astype(np.int64), size.astype(np.int64)), size


def _seq_slice(attrs, x: LoDTensor, offset, length) -> LoDTensor:
    rows, size = _slice_rows(x, offset, length)
    new_offsets = x.offsets[:-1] + (offsets_of(size.astype(np.int64)),)
    return LoDTensor.unchecked(x.numpy()[rows], new_offsets)


def _seq_slice_grad(attrs, x: LoDTensor, offset, length, dout) -> LoDTensor:
    rows, _ = _slice_rows(x, offset, length)
    dx = np.zeros(x.shape, dtype=dout.dtype)
    dx[rows] = dout.numpy()
    return LoDTensor.unchecked(dx, x.offsets)


register_simple(
    "sequence_slice", [In("X", "a LoDTensor"), In("Offset", "[nseq, 1] int"),
                       In("Length", "[nseq, 1] int")],
    [Out("Out", "the slices, lengths = Length")], [], _infer_slice, _seq_slice,
    backward=_seq_slice_grad, wrt=["X"], dtypes=NUMERIC, lod=True, doc=__doc__)
