"""fake_dequantize_max_abs: quantized values back to floats, Out = X * Scale / max_range
(max_range is the bin count the values were quantized with, 127 for 8 bits). No gradient."""

from __future__ import annotations

from paddle_ir.ops.quantize.quant_common import check_scalar
from paddle_ir.ops.registry import FLOATS, REQUIRED, Attr, In, Out, register_op

fake_dequantize_max_abs = register_op(
    "fake_dequantize_max_abs",
    inputs=[In("X", "quantized values (floats holding integers)"),
            In("Scale", "[1]: the scale X was quantized with")],
    outputs=[Out("Out", "X's shape and LoD")],
    attrs=[Attr("max_range", "float", REQUIRED, "the quantized range, 2^(bits - 1) - 1")],
    doc=__doc__,
)


@fake_dequantize_max_abs.infer_shape
def _(ctx):
    check_scalar(ctx, "Scale")
    ctx.enforce(ctx.attr("max_range") != 0, "max_range must not be 0")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


@fake_dequantize_max_abs.kernel(dtypes=FLOATS)
def fake_dequantize_max_abs_kernel(attrs, x, scale):
    dtype = x.dtype.type
    return x * dtype(scale.reshape(-1)[0]) / dtype(attrs["max_range"])
