"""fake_quantize_abs_max: X onto the integer grid of its own abs-max.

    s = max |X|;  bin_cnt = 2^(bit_length - 1) - 1
    round_type 0: Out = clamp(round_half_even(bin_cnt / s * X), -bin_cnt - 1, bin_cnt)
    round_type 1: Out = round_half_away(bin_cnt / s * clip(X, -s, s))   (Paddle 1.x, default)
    OutScale = [s]

Out holds integers in X's float dtype; 1 / s is 1 / (s + 1e-6) when s <= 1e-30 (an all-zero
X). No gradient (Paddle registers none; training uses the quantize-dequantize ops).
"""

from __future__ import annotations

from paddle_ir.ops.quantize.quant_common import (
    abs_max,
    bin_count,
    check_bits,
    check_round_type,
    quantize,
)
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

fake_quantize_abs_max = register_op(
    "fake_quantize_abs_max",
    inputs=[In("X", "the float tensor to quantize")],
    outputs=[Out("Out", "X's shape: the quantized values (integers, X's dtype)"),
             Out("OutScale", "[1]: max |X|")],
    attrs=[Attr("bit_length", "int", 8, "quantization bits"),
           Attr("round_type", "int", 1, "0: half to even, clamped; 1: clip, half away")],
    doc=__doc__,
)


@fake_quantize_abs_max.infer_shape
def _(ctx):
    check_bits(ctx)
    check_round_type(ctx)
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")
    ctx.set_output("OutScale", [1], ctx.input_dtype("X"))


@fake_quantize_abs_max.kernel(dtypes=FLOATS)
def fake_quantize_abs_max_kernel(attrs, x):
    scale = abs_max(x)
    return quantize(x, scale, bin_count(attrs["bit_length"]), attrs["round_type"]), scale
