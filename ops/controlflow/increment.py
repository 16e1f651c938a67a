"""increment: Out = X + step, for a one-element counter (loop indices).

X holds exactly one element, of any numeric dtype; `step` is converted to it.
Out may be X itself (`increment(i, in_place=True)`, Paddle's loop idiom).
Gradient: dX = dOut (a `scale` by 1).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.registry import NUMERIC, Attr, In, Out, register_op

increment = register_op(
    "increment",
    inputs=[In("X", "a one-element counter")],
    outputs=[Out("Out", "X + step, X's shape and dtype")],
    attrs=[Attr("step", "float", 1.0, "the amount added")],
    doc=__doc__,
)


@increment.infer_shape
def _(ctx):
    shape = ctx.input_shape("X")
    known = all(d >= 0 for d in shape)
    ctx.enforce(not known or int(np.prod(shape)) == 1,
                lambda: f"X must hold exactly one element, got shape {list(shape)}")
    ctx.set_output("Out", shape, ctx.input_dtype("X"))


@increment.kernel(dtypes=NUMERIC)
def increment_kernel(attrs, x):
    if x.size != 1:
        raise KernelError(f"increment needs a one-element X, got shape {list(x.shape)}")
    return x + np.asarray(attrs["step"]).astype(x.dtype)


@increment.grad_maker
def _(g):
    return [g.grad_op("scale", inputs={"X": g.output_grad("Out")},
                      outputs={"Out": g.input_grad("X")}, attrs={"scale": 1.0})]
