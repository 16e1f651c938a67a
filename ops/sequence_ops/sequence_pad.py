"""sequence_pad / sequence_unpad (+ _grad): between 1-level sequences and a padded batch.

sequence_pad: X ([rows, ...], one LoD level of n sequences) becomes
Out [n, padded_length, ...]: sequence i fills Out[i, :len_i], the rest is
PadValue (a [1] scalar, or one step's shape). padded_length -1 means the
longest sequence's length; a positive one must be at least that. Length is
[n] int64, the original lengths. Paddle's example:

    X.lod = [[0, 2, 5]], X = [a, b, c, d, e], PadValue = [0], padded_length = 4
    -> Out = [[a, b, 0, 0], [c, d, e, 0]], Length = [2, 3]

sequence_unpad: X [n, L, ...] and Length [n] give Out [sum(Length), ...]
(an [n, L] X gives [sum, 1]) holding X[i, :Length[i]] for each i, with the
LoD [[0, Length[0], Length[0] + Length[1], ...]].

Gradients: pad's dX takes dOut's unpadded steps; unpad's dX is dOut padded
with zeros (PadValue and Length get none).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.limits import check_allocation
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import dims_match
from paddle_ir.ops.registry import FLOATS, INTS, NUMERIC, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import (
    lengths_of,
    lod_error,
    offsets_of,
    ranges_to_rows,
    require_lod,
)

sequence_pad = register_op(
    "sequence_pad",
    inputs=[In("X", "[rows, ...] (rank >= 2) with one LoD level"),
            In("PadValue", "the value of padded steps: [1], or one step's shape")],
    outputs=[Out("Out", "[num_sequences, padded_length, ...], no LoD"),
             Out("Length", "[num_sequences] int64, the lengths before padding")],
    attrs=[Attr("padded_length", "int", -1,
                "the padded length; -1: the longest sequence's length")],
    doc=__doc__,
)


def _check_x(ctx, slot: str = "X"):
    x_shape = ctx.input_shape(slot)
    ctx.enforce(len(x_shape) >= 2,
                lambda: f"{ctx.op_type} requires {slot} of rank >= 2 ([rows, features...]), got "
                f"{list(x_shape)}", hint="reshape a [rows] tensor to [rows, 1]")
    return x_shape


@sequence_pad.infer_shape
def _(ctx):
    require_lod(ctx, "X", exactly=1)
    x_shape = _check_x(ctx)
    step = tuple(x_shape[1:])
    pad_shape = tuple(ctx.input_shape("PadValue"))
    ctx.enforce(pad_shape == (1,) or (
                len(pad_shape) == len(step)
                and all(dims_match(p, s) for p, s in zip(pad_shape, step, strict=True))),
                lambda: f"PadValue must be a [1] scalar or have one step's shape {list(step)}, got "
                f"{list(pad_shape)}")
    ctx.enforce(ctx.input_dtype("PadValue") == ctx.input_dtype("X"),
                lambda: f"PadValue must have X's dtype {ctx.input_dtype('X')}, got "
                f"{ctx.input_dtype('PadValue')}")
    padded_length = ctx.attr("padded_length")
    ctx.enforce(padded_length == -1 or padded_length > 0,
                lambda: f"padded_length must be -1 or positive, got {padded_length}")
    ctx.set_output("Out", (-1, padded_length) + step, ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", 0)
    ctx.set_output("Length", (-1,), np.int64)
    ctx.set_output_lod_level("Length", 0)


def padded_rows(offsets: np.ndarray, padded_length: int, op_type: str):
    """(lengths, L, the row of Out.reshape(n * L, ...) that each row of X goes to)."""
    lengths = lengths_of(offsets)
    longest = int(lengths.max()) if lengths.size else 0
    if padded_length == -1:
        padded_length = longest
    elif padded_length < longest:
        raise lod_error(op_type, f"padded_length {padded_length} is shorter than the longest "
                                 f"sequence of X ({longest} rows)",
                        hint="use padded_length=-1 (maxlen=None) to pad to the longest")
    starts = np.arange(lengths.size, dtype=np.int64) * padded_length
    return lengths, padded_length, ranges_to_rows(starts, lengths)


@sequence_pad.kernel(dtypes=NUMERIC, lod=True)
def sequence_pad_kernel(attrs, x: LoDTensor, pad_value: LoDTensor):
    data = x.numpy()
    lengths, length, dest = padded_rows(x.offsets[-1], attrs["padded_length"], "sequence_pad")
    step = data.shape[1:]
    # Its size comes from X's LoD (the sequence count times the longest) or padded_length,
    # which InferShape does not know.
    check_allocation("sequence_pad", (lengths.size, length) + step, data.dtype,
                     f"padded_length={attrs['padded_length']} and X's LoD "
                     f"({lengths.size} sequences, the longest {int(lengths.max(initial=0))})")
    out = np.empty((lengths.size * length,) + step, dtype=data.dtype)
    out[...] = pad_value.numpy().reshape(step if pad_value.numpy().size > 1 else ())
    out[dest] = data
    return out.reshape((lengths.size, length) + step), lengths.astype(np.int64)


@sequence_pad.grad_maker
def _(g):
    return [g.grad_op("sequence_pad_grad",
                      inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"padded_length": g.attr("padded_length")})]


sequence_pad_grad = register_op(
    "sequence_pad_grad",
    inputs=[In("X"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("padded_length", "int", -1)],
    key_inputs=["Out@GRAD"],
    doc="dX = the steps of dOut that hold X's rows (padding gets no gradient).",
)


@sequence_pad_grad.infer_shape
def _(ctx):
    require_lod(ctx, "X", exactly=1)
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))
    ctx.share_lod("X", "X@GRAD")


@sequence_pad_grad.kernel(dtypes=FLOATS, lod=True)
def sequence_pad_grad_kernel(attrs, x: LoDTensor, dout: LoDTensor):
    d = dout.numpy()
    _, _, dest = padded_rows(x.offsets[-1], d.shape[1], "sequence_pad_grad")
    return LoDTensor.unchecked(d.reshape((-1,) + d.shape[2:])[dest].reshape(x.shape), x.offsets)


# --- sequence_unpad ------------------------------------------------------------------------------

sequence_unpad = register_op(
    "sequence_unpad",
    inputs=[In("X", "[num_sequences, padded_length, ...]"),
            In("Length", "[num_sequences] int64 (or int32): the lengths to keep")],
    outputs=[Out("Out", "[sum(Length), ...] with one LoD level")],
    doc=__doc__,
)


def _unpadded_shape(x_shape) -> tuple:
    return tuple(x_shape[2:]) if len(x_shape) > 2 else (1,)


@sequence_unpad.infer_shape
def _(ctx):
    x_shape = _check_x(ctx)
    length_shape = ctx.input_shape("Length")
    ctx.enforce(len(length_shape) == 1,
                lambda: f"Length must be 1-D ([num_sequences]), got {list(length_shape)}")
    ctx.enforce(length_shape[0] < 0 or x_shape[0] < 0 or length_shape[0] == x_shape[0],
                lambda: f"Length holds {length_shape[0]} lengths but X holds {x_shape[0]} padded "
                f"sequences; they must agree")
    ctx.enforce(ctx.input_dtype("Length") in INTS,
                lambda: f"Length must be int64 or int32, got {ctx.input_dtype('Length')}")
    ctx.set_output("Out", (-1,) + _unpadded_shape(x_shape), ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", 1)


def unpadded_rows(x_shape, length: np.ndarray, op_type: str):
    """(Out's offsets, the row of X.reshape(n * L, ...) each row of Out comes from)."""
    n, padded_length = x_shape[0], x_shape[1]
    lengths = length.astype(np.int64).reshape(-1)
    if lengths.size != n:
        raise lod_error(op_type, f"Length holds {lengths.size} lengths but X holds {n} padded "
                                 f"sequences")
    if lengths.size and (lengths.min() < 0 or lengths.max() > padded_length):
        raise lod_error(op_type, f"every Length must lie in [0, {padded_length}] (X's padded "
                                 f"length), got {lengths.tolist()}")
    starts = np.arange(n, dtype=np.int64) * padded_length
    return offsets_of(lengths), ranges_to_rows(starts, lengths)


@sequence_unpad.kernel(dtypes=NUMERIC, lod=True)
def sequence_unpad_kernel(attrs, x: LoDTensor, length: LoDTensor):
    data = x.numpy()
    offsets, rows = unpadded_rows(data.shape, length.numpy(), "sequence_unpad")
    out = data.reshape((-1,) + data.shape[2:])[rows]
    return LoDTensor.unchecked(out.reshape((rows.size,) + _unpadded_shape(data.shape)), (offsets,))


@sequence_unpad.grad_maker
def _(g):
    return [g.grad_op("sequence_unpad_grad",
                      inputs={"X": g.input("X"), "Length": g.input("Length"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


sequence_unpad_grad = register_op(
    "sequence_unpad_grad",
    inputs=[In("X"), In("Length"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut's sequences written back into X's padded layout, zeros elsewhere.",
)


@sequence_unpad_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))
    ctx.share_lod("X", "X@GRAD")


@sequence_unpad_grad.kernel(dtypes=FLOATS, lod=True)
def sequence_unpad_grad_kernel(attrs, x: LoDTensor, length: LoDTensor, dout: LoDTensor):
    _, rows = unpadded_rows(x.shape, length.numpy(), "sequence_unpad_grad")
    dx = np.zeros(x.shape, dtype=dout.dtype)
    dx.reshape((-1,) + x.shape[2:])[rows] = dout.numpy().reshape((rows.size,) + x.shape[2:])
    return LoDTensor.unchecked(dx, x.offsets)
