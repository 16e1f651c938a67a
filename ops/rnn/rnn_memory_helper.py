"""rnn_memory_helper (+ _grad): the identity Paddle's StaticRNN/DynamicRNN put between a
step's memory and the variable it is read from (no math).

    Out = X;   dX = dOut, or zeros shaped like X when no gradient reaches Out
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

rnn_memory_helper = register_op(
    "rnn_memory_helper",
    inputs=[In("X")],
    outputs=[Out("Out", "X")],
    attrs=[Attr("dtype", "int", 5, "kept for Paddle programs (Out has X's dtype)")],
    doc=__doc__,
)


@rnn_memory_helper.infer_shape
def _(ctx):
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


@rnn_memory_helper.kernel(dtypes=FLOATS, lod=True)
def rnn_memory_helper_kernel(attrs, x):
    return x


@rnn_memory_helper.grad_maker
def _(g):
    inputs = {"X": g.input("X"), "Out": g.output("Out")}
    if g.has_output_grad(g.output("Out")[0]):
        inputs["Out@GRAD"] = g.output_grad("Out")
    return [g.grad_op("rnn_memory_helper_grad", inputs=inputs,
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"dtype": g.attr("dtype")})]


rnn_memory_helper_grad = register_op(
    "rnn_memory_helper_grad",
    inputs=[In("X", no_need_buffer=True), In("Out", no_need_buffer=True),
            In("Out@GRAD", dispensable=True)],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("dtype", "int", 5)],
    key_inputs=["X"],
    doc="dX = dOut, or zeros shaped like X when no gradient reaches Out.",
)


@rnn_memory_helper_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@rnn_memory_helper_grad.kernel(dtypes=FLOATS)
def rnn_memory_helper_grad_kernel(attrs, x, out, dout):
    return np.zeros(x.shape, x.dtype) if dout is None else dout.copy()
