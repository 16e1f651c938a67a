"""sequence_reverse: reverse the rows of each sequence of X's last LoD level.

    X.lod = [[0, 3, 5]], X = [a, b, c, d, e]  ->  Y = [c, b, a, e, d], same LoD

The output slot is `Y`, as in Paddle. The op is its own inverse, so its
gradient reverses dY; sequence_reverse_grad takes the sequences from X's LoD
rather than trusting dY to carry one.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import FLOATS, NUMERIC, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import require_lod

sequence_reverse = register_op(
    "sequence_reverse",
    inputs=[In("X", "[rows, ...] with at least one LoD level")],
    outputs=[Out("Y", "X with each sequence's rows reversed; X's LoD")],
    doc=__doc__,
)


@sequence_reverse.infer_shape
def _(ctx):
    require_lod(ctx, "X")
    ctx.set_output("Y", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Y")


def reversed_rows(offsets: np.ndarray) -> np.ndarray:
    """Row r of a sequence [s, e) comes from row s + e - 1 - r."""
    lengths = np.diff(offsets)
    rows = np.arange(int(offsets[-1]), dtype=np.int64)
    return np.repeat(offsets[:-1] + offsets[1:] - 1, lengths) - rows


@sequence_reverse.kernel(dtypes=NUMERIC, lod=True)
def sequence_reverse_kernel(attrs, x: LoDTensor):
    return LoDTensor.unchecked(x.numpy()[reversed_rows(x.offsets[-1])], x.offsets)


@sequence_reverse.grad_maker
def _(g):
    return [g.grad_op("sequence_reverse_grad",
                      inputs={"X": g.input("X"), "Y@GRAD": g.output_grad("Y")},
                      outputs={"X@GRAD": g.input_grad("X")})]


sequence_reverse_grad = register_op(
    "sequence_reverse_grad",
    inputs=[In("X"), In("Y@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Y@GRAD"],
    doc="dX = dY with each sequence of X's last LoD level reversed.",
)


@sequence_reverse_grad.infer_shape
def _(ctx):
    require_lod(ctx, "X")
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Y@GRAD"))
    ctx.share_lod("X", "X@GRAD")


@sequence_reverse_grad.kernel(dtypes=FLOATS, lod=True)
def sequence_reverse_grad_kernel(attrs, x: LoDTensor, dy: LoDTensor):
    return LoDTensor.unchecked(dy.numpy()[reversed_rows(x.offsets[-1])], x.offsets)
