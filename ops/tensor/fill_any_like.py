"""fill_any_like: Out = a tensor of X's shape filled with `value` (Paddle's op).

`dtype` -1 keeps X's dtype. Out is dense and has no LoD. The backward pass
uses it for gradients nobody produced (zeros for an unused output of a
multi-output op) and for `loss@GRAD` when the loss has unknown dims.
Its grad maker emits nothing: Out does not depend on X's values, so no
gradient flows back through it (Paddle's EmptyGradOpMaker).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.ops.registry import ALL_DTYPES, Attr, In, Out, register_op

fill_any_like = register_op(
    "fill_any_like",
    inputs=[In("X", "the tensor whose shape (and by default dtype) Out takes",
               no_need_buffer=True)],
    outputs=[Out("Out", "the filled tensor")],
    attrs=[
        Attr("value", "float", 0.0, "the value of every element"),
        Attr("dtype", "int", -1, "the output DataType; -1 keeps X's"),
    ],
    doc=__doc__,
)


@fill_any_like.infer_shape
def _(ctx):
    dtype = ctx.input_dtype("X") if ctx.attr("dtype") < 0 else to_numpy_dtype(ctx.attr("dtype"))
    ctx.set_output("Out", ctx.input_shape("X"), dtype)


@fill_any_like.kernel(dtypes=ALL_DTYPES)
def fill_any_like_dense(attrs, x):
    dtype = x.dtype if attrs["dtype"] < 0 else to_numpy_dtype(attrs["dtype"])
    return np.full(x.shape, attrs["value"], dtype=dtype)



@fill_any_like.grad_maker
def _(g):
    return []
