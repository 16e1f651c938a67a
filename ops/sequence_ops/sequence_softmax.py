"""sequence_softmax (+ _grad): a softmax within each sequence of X's last LoD level.

X is [rows] or [rows, 1] (one score per step). For a sequence s:

    Out_j = exp(x_j - max_s x) / sum_{k in s} exp(x_k - max_s x)

Out has X's shape and LoD. Gradient: dX_j = Out_j * (dOut_j - sum_{k in s} dOut_k Out_k).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.segments import segment_sum
from paddle_ir.ops.registry import FLOATS, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lengths_of, require_lod, segment_extreme

sequence_softmax = register_op(
    "sequence_softmax",
    inputs=[In("X", "[rows] or [rows, 1] scores with at least one LoD level")],
    outputs=[Out("Out", "X's shape and LoD")],
    doc=__doc__,
)


def _check_scores(ctx, slot: str) -> None:
    shape = ctx.input_shape(slot)
    ctx.enforce(len(shape) == 1 or (len(shape) == 2 and shape[1] in (1, -1)),
                lambda: f"sequence_softmax requires {slot} of shape [rows] or [rows, 1], got "
                f"{list(shape)}", hint="one score per step; reshape to [-1, 1] first")


@sequence_softmax.infer_shape
def _(ctx):
    require_lod(ctx, "X")
    _check_scores(ctx, "X")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def softmax(x: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    flat = x.reshape(-1, 1)
    lengths = lengths_of(offsets)
    shifted = flat - np.repeat(segment_extreme(flat, offsets), lengths, axis=0)
    e = np.exp(shifted)
    total = segment_sum(e, offsets)
    return (e / np.repeat(total, lengths, axis=0)).reshape(x.shape)


@sequence_softmax.kernel(dtypes=FLOATS, lod=True)
def sequence_softmax_kernel(attrs, x: LoDTensor):
    return LoDTensor.unchecked(softmax(x.numpy(), x.offsets[-1]), x.offsets)


@sequence_softmax.grad_maker
def _(g):
    return [g.grad_op("sequence_softmax_grad",
                      inputs={"X": g.input("X"), "Out": g.output("Out"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


sequence_softmax_grad = register_op(
    "sequence_softmax_grad",
    inputs=[In("X"), In("Out"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX_j = Out_j * (dOut_j - sum over j's sequence of dOut_k * Out_k).",
)


@sequence_softmax_grad.infer_shape
def _(ctx):
    require_lod(ctx, "X")
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))
    ctx.share_lod("X", "X@GRAD")


@sequence_softmax_grad.kernel(dtypes=FLOATS, lod=True)
def sequence_softmax_grad_kernel(attrs, x: LoDTensor, out: LoDTensor, dout: LoDTensor):
    offsets = x.offsets[-1]
    y = out.numpy().reshape(-1, 1)
    dy = dout.numpy().reshape(-1, 1)
    inner = np.repeat(segment_sum(dy * y, offsets), lengths_of(offsets), axis=0)
    return LoDTensor.unchecked((y * (dy - inner)).reshape(x.shape), x.offsets)
