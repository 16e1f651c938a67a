"""More sequence ops over the last LoD level (+ grads where differentiable):

    sequence_enumerate  Out[j] = X[j : j + win_size] within j's sequence (int ids, [N, 1]),
                        pad_value past the sequence's end; Out [N, win_size], X's LoD
    sequence_expand_as  row i of X repeated len(Y_i) times; Out takes Y's LoD
    sequence_reshape    each sequence's rows re-cut to width new_dim (len * D / new_dim rows)
    sequence_scatter    Out = X; Out[i, Ids[j]] += Updates[j] for j in sequence i of Ids
    sequence_slice      Out_i = X_i[Offset[i] : Offset[i] + Length[i]]; Out's lengths = Length

Gradients: expand_as sums dOut per sequence; reshape reshapes back; scatter
passes dOut to X and gathers dOut[i, Ids[j]] for Updates; slice scatters dOut
back into zeros.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.limits import check_allocation
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.segments import segment_sum
from paddle_ir.ops.registry import FLOATS, INTS, NUMERIC, Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import (
    lengths_of,
    lod_error,
    offsets_of,
    ranges_to_rows,
    require_lod,
    segment_ids,
)
from paddle_ir.ops.simple_op import register_simple

# -- sequence_enumerate ----------------------------------------------------------------------


def _infer_enumerate(ctx):
    require_lod(ctx, "X")
    shape = ctx.input_shape("X")
    ctx.enforce(len(shape) == 2 and shape[1] in (1, -1), f"X must be [N, 1], got {list(shape)}")
    ctx.enforce(ctx.attr("win_size") >= 1, f"win_size must be >= 1, got {ctx.attr('win_size')}")
    ctx.set_output("Out", (shape[0], ctx.attr("win_size")), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def _enumerate(attrs, x: LoDTensor) -> LoDTensor:
    ids, offsets = x.numpy().reshape(-1), x.offsets[-1]
    win = attrs["win_size"]
    n = ids.size
    pos = np.arange(n)[:, None] + np.arange(win)[None, :]
    end = np.repeat(offsets[1:], lengths_of(offsets))[:, None]
    inside = pos < end
    out = np.where(inside, ids[np.minimum(pos, max(n - 1, 0))] if n else 0, attrs["pad_value"])
    return LoDTensor.unchecked(out.astype(ids.dtype).reshape(n, win), x.offsets)


register_simple(
    "sequence_enumerate", [In("X", "int ids [N, 1] with a LoD")], [Out("Out", "[N, win_size]")],
    [Attr("win_size", "int", 2, "the window"), Attr("pad_value", "int", 0, "past the end")],
    _infer_enumerate, _enumerate, dtypes=INTS, lod=True, doc=__doc__)


# -- sequence_expand_as ----------------------------------------------------------------------

def _infer_expand_as(ctx):
    require_lod(ctx, "Y")
    shape = ctx.input_shape("X")
    ctx.set_output("Out", (-1,) + tuple(shape[1:]), ctx.input_dtype("X"))
    ctx.share_lod("Y", "Out")


def _expand_as(attrs, x: LoDTensor, y: LoDTensor) -> LoDTensor:
    offsets = y.offsets[-1]
    lengths = lengths_of(offsets)
    if lengths.size != x.shape[0]:
        raise lod_error("sequence_expand_as",
                        f"X has {x.shape[0]} rows but Y's last LoD level has {lengths.size} "
                        f"sequences; they must be equal")
    # Y's LoD sizes the copy (InferShape cannot know it).
    check_allocation("sequence_expand_as", (int(offsets[-1]),) + x.shape[1:], x.dtype,
                     "the sequence lengths in Y's LoD")
    return LoDTensor.unchecked(np.repeat(x.numpy(), lengths, axis=0), y.offsets)


def _expand_as_grad(attrs, x: LoDTensor, y: LoDTensor, dout: LoDTensor) -> LoDTensor:
    return LoDTensor.unchecked(segment_sum(dout.numpy(), y.offsets[-1]).astype(dout.dtype),
                           x.offsets)


register_simple(
    "sequence_expand_as", [In("X", "[n, ...], one row per sequence of Y"),
                           In("Y", "a LoDTensor giving the repeat counts")],
    [Out("Out", "X's rows repeated, with Y's LoD")], [], _infer_expand_as, _expand_as,
    backward=_expand_as_grad, wrt=["X"], dtypes=NUMERIC, lod=True, doc=__doc__)


# -- sequence_reshape ------------------------------------------------------------------------

def _infer_reshape(ctx):
    require_lod(ctx, "X")
    shape = ctx.input_shape("X")
    new_dim = ctx.attr("new_dim")
    ctx.enforce(len(shape) == 2, f"X must be [N, D], got {list(shape)}")
    ctx.enforce(new_dim >= 1, f"new_dim must be >= 1, got {new_dim}")
    ctx.set_output("Out", (-1, new_dim), ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", ctx.input_lod_level("X"))


def _reshape(attrs, x: LoDTensor) -> LoDTensor:
    arr, new_dim = x.numpy(), attrs["new_dim"]
    width = arr.shape[1]
    sizes = lengths_of(x.offsets[-1]) * width
    if (sizes % new_dim).any():
        raise lod_error("sequence_reshape",
                        f"every sequence's element count (rows * {width}) must be a multiple "
                        f"of new_dim {new_dim}, got counts {sizes.tolist()}")
    offsets = x.offsets[:-1] + (offsets_of(sizes // new_dim),)
    return LoDTensor.unchecked(arr.reshape(-1, new_dim), offsets)


def _reshape_grad(attrs, x: LoDTensor, dout: LoDTensor) -> LoDTensor:
    return LoDTensor.unchecked(dout.numpy().reshape(x.shape), x.offsets)


register_simple(
    "sequence_reshape", [In("X", "[N, D] with a LoD")], [Out("Out", "[M, new_dim]")],
    [Attr("new_dim", "int", 1, "the new row width")], _infer_reshape, _reshape,
    backward=_reshape_grad, wrt=["X"], dtypes=NUMERIC, lod=True, doc=__doc__)


# -- sequence_scatter ------------------------------------------------------------------------

def _infer_scatter(ctx):
    require_lod(ctx, "Ids")
    ctx.enforce(ctx.input_dtype("Ids") in INTS, "Ids must be int32 or int64")
    x, ids, upd = ctx.input_shape("X"), ctx.input_shape("Ids"), ctx.input_shape("Updates")
    ctx.enforce(len(x) == 2, f"X must be [n, D], got {list(x)}")
    ctx.enforce(ids[0] < 0 or upd[0] < 0 or ids[0] == upd[0],
                f"Updates must have one row per id, got Ids {list(ids)} and Updates {list(upd)}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))


def _scatter_coords(x_shape, ids: LoDTensor, updates_rows: int):
    offsets = ids.offsets[-1]
    cols = ids.numpy().reshape(-1).astype(np.int64)
    rows = segment_ids(offsets)
    if offsets.size - 1 != x_shape[0] or cols.size != updates_rows:
        raise lod_error("sequence_scatter",
                        f"Ids must have one sequence per row of X ({x_shape[0]}) and one id per "
                        f"row of Updates ({updates_rows}), got {offsets.size - 1} sequences "
                        f"and {cols.size} ids")
    if cols.size and (cols.min() < 0 or cols.max() >= x_shape[1]):
        raise lod_error("sequence_scatter", f"Ids must lie in [0, {x_shape[1]})")
    return rows, cols


def _seq_scatter(attrs, x: LoDTensor, ids: LoDTensor, updates: LoDTensor) -> LoDTensor:
    out = x.numpy().copy()
    rows, cols = _scatter_coords(out.shape, ids, updates.shape[0])
    np.add.at(out, (rows, cols), updates.numpy().reshape(-1))
    return LoDTensor.unchecked(out, x.offsets)


def _seq_scatter_grad(attrs, x, ids, updates, dout):
    d = dout.numpy()
    rows, cols = _scatter_coords(d.shape, ids, updates.shape[0])
    return (LoDTensor.unchecked(d.copy(), x.offsets),
            LoDTensor.unchecked(d[rows, cols].reshape(updates.shape), updates.offsets))


register_simple(
    "sequence_scatter", [In("X", "[n, D]"), In("Ids", "[M, 1] int with a LoD"),
                         In("Updates", "[M, 1], Ids' LoD")], [Out("Out", "X's shape")], [],
    _infer_scatter, _seq_scatter, backward=_seq_scatter_grad, wrt=["X", "Updates"],
    dtypes=FLOATS, lod=True, doc=__doc__)


# -- sequence_slice --------------------------------------------------------------------------

def _infer_slice(ctx):
    require_lod(ctx, "X")
    for slot in ("Offset", "Length"):
        ctx.enforce(ctx.input_dtype(slot) in INTS, f"{slot} must be int32 or int64")
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
