"""sequence_expand (+ _grad): repeat X's sequences (or rows) as Y's LoD at `ref_level` says.

Let r_i be the length of the i-th sequence of Y's LoD level `ref_level`
(-1: the last level). X has at most one LoD level:

- X with a LoD: X's i-th sequence is repeated r_i times, one after another;
  Out's LoD has one sequence per copy (r_i sequences of len(X_i) rows).
- X without a LoD: X's i-th row is repeated r_i times, and Out has no LoD,
  as in Paddle (its InferShape shares X's LoD with Out).

X must hold exactly as many sequences (or rows) as that level of Y has
sequences. Paddle's documented examples, with LoD given as lengths:

    x.lod = [[2, 2]], x = [a, b, c, d]; y.lod = [[2, 2], [3, 3, 1, 1]], ref_level = 0
    -> out.lod = [[2, 2, 2, 2]], out = [a, b, a, b, c, d, c, d]
    x = [a, b, c] (no LoD); y.lod = [[2, 0, 3]]  ->  out = [a, a, c, c, c]

Gradient: dX sums dOut over the copies of each row.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.limits import check_allocation
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.segments import segment_sum
from paddle_ir.ops.registry import FLOATS, NUMERIC, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import (
    lengths_of,
    lod_error,
    offsets_of,
    ranges_to_rows,
    require_lod,
)

sequence_expand = register_op(
    "sequence_expand",
    inputs=[In("X", "[rows, ...], with at most one LoD level"),
            In("Y", "a LoDTensor whose LoD level `ref_level` gives the repeat counts")],
    outputs=[Out("Out", "X's sequences (or rows) repeated; X's LoD level count")],
    attrs=[Attr("ref_level", "int", -1, "the level of Y's LoD to expand by; -1 is the last")],
    doc=__doc__,
)


def _check_levels(ctx) -> None:
    y_levels = require_lod(ctx, "Y")
    x_levels = ctx.input_lod_level("X")
    ref_level = ctx.attr("ref_level")
    ctx.enforce(x_levels <= 1, lambda:
                f"sequence_expand requires X with at most 1 LoD level, got lod_level {x_levels}",
                hint="lod_reset X to a single level first")
    ctx.enforce(ref_level == -1 or 0 <= ref_level < y_levels,
                lambda: f"ref_level must be -1 or in [0, {y_levels}) for Y with {y_levels} LoD "
                f"level(s), got {ref_level}")


@sequence_expand.infer_shape
def _(ctx):
    _check_levels(ctx)
    x_shape = ctx.input_shape("X")
    ctx.enforce(len(x_shape) >= 1, "X must have at least one dim (its rows)")
    ctx.set_output("Out", (-1,) + tuple(x_shape[1:]), ctx.input_dtype("X"))
    # As many levels as X (Paddle shares X's LoD); the kernel computes the offsets.
    ctx.set_output_lod_level("Out", ctx.input_lod_level("X"))


def expand_rows(x_offsets, ref_offsets: np.ndarray, x_rows: int, op_type: str):
    """(gather index into X's rows, Out's offsets or None) for one expansion."""
    repeats = lengths_of(ref_offsets)
    if x_offsets is None:
        if x_rows != repeats.size:
            raise lod_error(
                op_type,
                f"X has {x_rows} rows but the reference LoD level of Y holds {repeats.size} "
                f"sequences; without a LoD, X needs one row per sequence of Y",
                hint="give X a LoD with create_lod_tensor(data, [[lengths]]) to expand "
                     "whole sequences")
        return np.repeat(np.arange(x_rows, dtype=np.int64), repeats), None
    x_lengths = lengths_of(x_offsets)
    if x_lengths.size != repeats.size:
        raise lod_error(
            op_type,
            f"X holds {x_lengths.size} sequences but the reference LoD level of Y holds "
            f"{repeats.size}; sequence_expand needs one sequence of X per sequence of Y "
            f"(X's LoD {x_offsets.tolist()}, Y's level {ref_offsets.tolist()})",
            hint=f"feed X as create_lod_tensor(data, [[lengths]]) with {repeats.size} lengths, "
                 f"or pick Y's level with ref_level")
    copy_lengths = np.repeat(x_lengths, repeats)
    copy_starts = np.repeat(x_offsets[:-1], repeats)
    return ranges_to_rows(copy_starts, copy_lengths), offsets_of(copy_lengths)


@sequence_expand.kernel(dtypes=NUMERIC, lod=True)
def sequence_expand_kernel(attrs, x: LoDTensor, y: LoDTensor):
    x_offsets = x.offsets[0] if x.offsets else None
    index, out_offsets = expand_rows(x_offsets, y.offsets[attrs["ref_level"]],
                                     x.shape[0], "sequence_expand")
    # Y's LoD sizes the copy (InferShape cannot know it).
    check_allocation("sequence_expand", (index.size,) + x.shape[1:], x.dtype,
                     "the repeat counts in Y's LoD")
    out = x.numpy()[index]
    return LoDTensor.unchecked(out, () if out_offsets is None else (out_offsets,))


@sequence_expand.grad_maker
def _(g):
    return [g.grad_op("sequence_expand_grad",
                      inputs={"X": g.input("X"), "Y": g.input("Y"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"ref_level": g.attr("ref_level")})]


sequence_expand_grad = register_op(
    "sequence_expand_grad",
    inputs=[In("X"), In("Y"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("ref_level", "int", -1)],
    key_inputs=["Out@GRAD"],
    doc="dX[r] = the sum of dOut over the copies of X's row r.",
)


@sequence_expand_grad.infer_shape
def _(ctx):
    _check_levels(ctx)
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))
    ctx.share_lod("X", "X@GRAD")


@sequence_expand_grad.kernel(dtypes=FLOATS, lod=True)
def sequence_expand_grad_kernel(attrs, x: LoDTensor, y: LoDTensor, dout: LoDTensor):
    x_offsets = x.offsets[0] if x.offsets else None
    index, _ = expand_rows(x_offsets, y.offsets[attrs["ref_level"]], x.shape[0],
                           "sequence_expand_grad")
    # dX is a scatter-add of dOut's rows into X's rows: group dOut's rows by target.
    counts = np.bincount(index, minlength=x.shape[0])
    order = np.argsort(index, kind="stable")
    dx = segment_sum(dout.numpy(), offsets_of(counts), row_order=order)
    return LoDTensor.unchecked(dx.reshape(x.shape), x.offsets)
