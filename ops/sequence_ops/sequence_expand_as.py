"""sequence_expand_as (+ _grad): row i of X repeated len(Y_i) times; Out takes Y's LoD.
The gradient sums dOut per sequence.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.limits import check_allocation
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.segments import segment_sum
from paddle_ir.ops.registry import NUMERIC, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import lengths_of, lod_error, require_lod
from paddle_ir.ops.simple_op import register_simple


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
