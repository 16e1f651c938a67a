"""is_empty: Out = (X has no elements), a bool [1] (the loop test of beam search decoders)."""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import ALL_DTYPES, In, Out, register_op

is_empty = register_op(
    "is_empty",
    inputs=[In("X", "any tensor", no_need_buffer=True)],
    outputs=[Out("Out", "bool [1]: X.numel() == 0")],
    doc=__doc__,
)


@is_empty.infer_shape
def _(ctx):
    ctx.set_output("Out", (1,), np.bool_)


@is_empty.kernel(dtypes=ALL_DTYPES)
def is_empty_kernel(attrs, x):
    return np.array([x.size == 0])


is_empty.grad_maker(lambda g: [])
