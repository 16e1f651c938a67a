"""fake_channel_wise_dequantize_max_abs: per-channel quantized values back to floats.

One scale tensor (a quantized weight): Scales[0] holds one scale per channel of
quant_axis (0 or 1),

    Out_c = X_c * Scales[0][c] / (2^(quant_bits[0] - 1) - 1)

Two (the output of a quantized conv or mul): Scales[0] per channel of dim x_num_col_dims
(the weights' scales), Scales[1] one value (the activation's scale),

    Out_c = X_c * Scales[0][c] * Scales[1][0] / ((2^(b0 - 1) - 1)(2^(b1 - 1) - 1))

No gradient.
"""

from __future__ import annotations

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.quantize.quant_common import bin_count, channel_shape, check_bits
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

fake_channel_wise_dequantize_max_abs = register_op(
    "fake_channel_wise_dequantize_max_abs",
    inputs=[In("X", "quantized values (floats holding integers)"),
            In("Scales", "one or two scale tensors", duplicable=True)],
    outputs=[Out("Out", "X's shape and LoD")],
    attrs=[Attr("quant_bits", "ints", [8], "the bits of each scale, one per Scales tensor"),
           Attr("quant_axis", "int", 0, "the channel axis of one scale, 0 or 1"),
           Attr("x_num_col_dims", "int", 1, "the channel axis with two scales")],
    doc=__doc__,
)


def _channel_axis(attrs, count: int) -> int:
    return attrs["quant_axis"] if count == 1 else attrs["x_num_col_dims"]


@fake_channel_wise_dequantize_max_abs.infer_shape
def _(ctx):
    check_bits(ctx, "quant_bits")
    x, count = ctx.input_shape("X"), ctx.input_count("Scales")
    bits = list(ctx.attr("quant_bits"))
    ctx.enforce(count in (1, 2), lambda: f"Scales must hold 1 or 2 tensors, got {count}")
    ctx.enforce(len(bits) == count, lambda:
                f"quant_bits must give one bit count per Scales tensor ({count}), got {bits}")
    ctx.enforce(count == 2 or ctx.attr("quant_axis") in (0, 1),
                lambda: f"quant_axis must be 0 or 1, got {ctx.attr('quant_axis')}")
    axis = _channel_axis(ctx.attrs, count)
    ctx.enforce(0 <= axis < len(x),
                lambda: f"X {shape_str(x)} has no channel axis {axis}")
    first = ctx.input_shape("Scales", 0)
    ctx.enforce(len(first) == 1 and first[0] in (-1, x[axis]) or x[axis] < 0,
                lambda: f"Scales[0] must hold one scale per channel, [{x[axis]}], got "
                f"{shape_str(first)}")
    if count == 2:
        second = ctx.input_shape("Scales", 1)
        ctx.enforce(len(second) == 1 and second[0] in (-1, 1),
                    lambda: f"Scales[1] must hold one value, got {shape_str(second)}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


@fake_channel_wise_dequantize_max_abs.kernel(dtypes=FLOATS)
def fake_channel_wise_dequantize_max_abs_kernel(attrs, x, scales):
    dtype = x.dtype.type
    bits = list(attrs["quant_bits"])
    axis = _channel_axis(attrs, len(scales))
    per_channel = scales[0].astype(x.dtype).reshape(channel_shape(x.ndim, axis))
    if len(scales) == 1:
        return x * per_channel / dtype(bin_count(bits[0]))
    max_range = dtype(bin_count(bits[0]) * bin_count(bits[1]))
    return x * per_channel * dtype(scales[1].reshape(-1)[0]) / max_range
