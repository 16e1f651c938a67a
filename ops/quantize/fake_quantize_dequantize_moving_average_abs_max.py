"""fake_quantize_dequantize_moving_average_abs_max: fake_quantize_moving_average_abs_max's
quantization, mapped back onto X's scale (the quant-dequant pair PaddleSlim inserts for
activations in quantization-aware training):

    Out = quantize(X, OutScale) * OutScale / (2^(bit_length - 1) - 1)

with OutScale, OutState, OutAccum updated as fake_quantize_moving_average_abs_max does
(training) or passed through (is_test). The gradient is straight through, clipped
values included, as in Paddle (its fake_quantize_dequantize_moving_average_abs_max_grad;
Paddle 3.3.1 gives dX = dOut exactly):

    dX = dOut
"""

from __future__ import annotations

from paddle_ir.ops.quantize.fake_quantize_moving_average_abs_max import (
    fake_quantize_moving_average_abs_max as quant_op,
)
from paddle_ir.ops.quantize.fake_quantize_moving_average_abs_max import (
    fake_quantize_moving_average_abs_max_kernel,
)
from paddle_ir.ops.quantize.quant_common import bin_count
from paddle_ir.ops.registry import FLOATS, In, Out, register_op

fake_quantize_dequantize_moving_average_abs_max = register_op(
    "fake_quantize_dequantize_moving_average_abs_max",
    inputs=list(quant_op.inputs),
    outputs=[Out("Out", "X's shape: X on the quantization grid, in X's units"),
             *quant_op.outputs[1:]],
    attrs=list(quant_op.attrs),
    doc=__doc__,
)
# The same shapes and checks as the quantize-only op.
fake_quantize_dequantize_moving_average_abs_max.infer_shape(quant_op.infer_shape_fn)


@fake_quantize_dequantize_moving_average_abs_max.kernel(dtypes=FLOATS)
def fake_quantize_dequantize_moving_average_abs_max_kernel(attrs, x, in_scale, in_accum,
                                                           in_state):
    q, scale, state, accum = fake_quantize_moving_average_abs_max_kernel(
        attrs, x, in_scale, in_accum, in_state)
    # Paddle's order: (q * s) / bin_cnt
    return q * scale / x.dtype.type(bin_count(attrs["bit_length"])), scale, state, accum


@fake_quantize_dequantize_moving_average_abs_max.grad_maker
def _(g):
    return [g.grad_op("fake_quantize_dequantize_moving_average_abs_max_grad",
                      inputs={"Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


fake_quantize_dequantize_grad = register_op(
    "fake_quantize_dequantize_moving_average_abs_max_grad",
    inputs=[In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=list(quant_op.attrs),  # Paddle's grad op carries the forward's attributes
    doc="dX = dOut: the gradient passes the quantization straight through.",
)


@fake_quantize_dequantize_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("Out@GRAD"), ctx.input_dtype("Out@GRAD"))


@fake_quantize_dequantize_grad.kernel(dtypes=FLOATS)
def fake_quantize_dequantize_grad_kernel(attrs, dout):
    return dout.copy()
