"""unstack (+ _grad): split X along `axis` into `num` tensors with that dim removed.

    Y[k] = X.take(k, axis),  k = 0..num-1      (num must equal X.shape[axis])
    dX = stack(dY, axis)                       (a missing dY[k] counts as zeros)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op

unstack = register_op(
    "unstack",
    inputs=[In("X")],
    outputs=[Out("Y", "num tensors of X's shape without dim `axis`", duplicable=True)],
    attrs=[Attr("axis", "int", 0, "the dim to split along (negative counts from the end)"),
           Attr("num", "int", doc="the number of outputs: X.shape[axis]")],
    doc=__doc__,
)


def _axis(ctx, rank: int) -> int:
    axis = ctx.attr("axis")
    ctx.enforce(-rank <= axis < rank, lambda: f"axis must be in [{-rank}, {rank}), got {axis}")
    return axis % rank


@unstack.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    axis = _axis(ctx, len(x))
    num = ctx.attr("num")
    ctx.enforce(x[axis] < 0 or x[axis] == num,
                lambda: f"num ({num}) must equal X.shape[{axis}] for X {shape_str(x)}")
    ctx.enforce(len(ctx.output_names("Y")) == num,
                lambda: f"unstack needs {num} outputs Y, got {len(ctx.output_names('Y'))}")
    out = tuple(d for k, d in enumerate(x) if k != axis)
    for k in range(num):
        ctx.set_output("Y", out, ctx.input_dtype("X"), i=k)


@unstack.kernel(dtypes=ALL_DTYPES)
def unstack_kernel(attrs, x):
    axis = attrs["axis"] % x.ndim   # InferShape checked num == X.shape[axis] on the value
    return [np.ascontiguousarray(np.take(x, k, axis=axis)) for k in range(attrs["num"])]


@unstack.grad_maker
def _(g):
    return [g.grad_op("unstack_grad", inputs={"X": g.input("X"), "Y@GRAD": g.output_grad("Y")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"axis": g.attr("axis"), "num": g.attr("num")})]


unstack_grad = register_op(
    "unstack_grad",
    inputs=[In("X", no_need_buffer=True), In("Y@GRAD", duplicable=True)],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("axis", "int", 0), Attr("num", "int")],
    key_inputs=["X"],
    doc="dX = stack(dY, axis).",
)


@unstack_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@unstack_grad.kernel(dtypes=FLOATS)
def unstack_grad_kernel(attrs, x, dys):
    axis = attrs["axis"] % x.ndim
    return np.stack(list(dys), axis=axis).astype(x.dtype, copy=False)
