"""fake_channel_wise_quantize_abs_max: a weight onto the integer grid of each output
channel's abs-max (quant_axis 0 for conv filters [Cout, Cin, kh, kw], 1 for mul weights
[in, out] and conv2d_transpose filters).

    s_c = max |X_c| over the channel's elements;  Out_c = quantize(X_c, s_c)
    OutScale = [s_0, ..., s_{C-1}]

with fake_quantize_abs_max's rounding (round_type) per channel. No gradient.
"""

from __future__ import annotations

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.quantize.quant_common import (
    bin_count,
    channel_abs_max,
    channel_shape,
    check_bits,
    check_round_type,
    quantize,
)
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

fake_channel_wise_quantize_abs_max = register_op(
    "fake_channel_wise_quantize_abs_max",
    inputs=[In("X", "the weight to quantize")],
    outputs=[Out("Out", "X's shape: the quantized values (integers, X's dtype)"),
             Out("OutScale", "[X.shape[quant_axis]]: each channel's max |X|")],
    attrs=[Attr("bit_length", "int", 8, "quantization bits"),
           Attr("round_type", "int", 1, "0: half to even, clamped; 1: clip, half away"),
           Attr("quant_axis", "int", 0, "the channel axis, 0 or 1"),
           Attr("is_test", "bool", False, "no effect on the result")],
    doc=__doc__,
)


@fake_channel_wise_quantize_abs_max.infer_shape
def _(ctx):
    check_bits(ctx)
    check_round_type(ctx)
    x, axis = ctx.input_shape("X"), ctx.attr("quant_axis")
    ctx.enforce(axis in (0, 1), lambda: f"quant_axis must be 0 or 1, got {axis}")
    ctx.enforce(len(x) > axis, lambda: f"X must have a dim {axis} (quant_axis), got {shape_str(x)}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")
    ctx.set_output("OutScale", [x[axis]], ctx.input_dtype("X"))


@fake_channel_wise_quantize_abs_max.kernel(dtypes=FLOATS)
def fake_channel_wise_quantize_abs_max_kernel(attrs, x):
    axis = attrs["quant_axis"]
    scales = channel_abs_max(x, axis)
    out = quantize(x, scales.reshape(channel_shape(x.ndim, axis)),
                   bin_count(attrs["bit_length"]), attrs["round_type"])
    return out, scales
