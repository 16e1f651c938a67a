"""allclose: whether two tensors are equal within tolerances, as one bool.

    Out = all(|Input - Other| <= atol + rtol * |Other|)        shape [1]

With `equal_nan`, NaNs in the same places count as equal; otherwise any NaN
makes the answer False. Input and Other broadcast as numpy does.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.broadcast import infer_numpy_broadcast
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

allclose = register_op(
    "allclose",
    inputs=[In("Input"), In("Other", "Input's shape, or one that broadcasts with it")],
    outputs=[Out("Out", "bool [1]")],
    attrs=[Attr("rtol", "float", 1e-5, "the relative tolerance"),
           Attr("atol", "float", 1e-8, "the absolute tolerance"),
           Attr("equal_nan", "bool", False, "NaNs in the same places are equal")],
    doc=__doc__,
)


@allclose.infer_shape
def _(ctx):
    infer_numpy_broadcast(ctx, ("Input", "Other"))
    ctx.enforce(ctx.input_dtype("Other") == ctx.input_dtype("Input"),
                lambda: f"Other must have Input's dtype {ctx.input_dtype('Input')}, got "
                f"{ctx.input_dtype('Other')}")
    ctx.set_output("Out", (1,), np.bool_)


@allclose.kernel(dtypes=FLOATS)
def allclose_kernel(attrs, x, y):
    # The tolerances are float32 attributes; compared in the inputs' type, as Paddle does.
    rtol, atol = x.dtype.type(attrs["rtol"]), x.dtype.type(attrs["atol"])
    close = np.abs(x - y) <= atol + rtol * np.abs(y)
    if attrs["equal_nan"]:
        close |= np.isnan(x) & np.isnan(y)
    return np.asarray([bool(close.all())])
