"""dequantize_abs_max: int8 (or int16) weights stored quantized back to float32,
Out = float(X) * Scale / max_range. No gradient."""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.quantize.quant_common import check_scalar
from paddle_ir.ops.registry import REQUIRED, Attr, In, Out, register_op

dequantize_abs_max = register_op(
    "dequantize_abs_max",
    inputs=[In("X", "int8/int16 quantized values"), In("Scale", "float32 [1]")],
    outputs=[Out("Out", "float32, X's shape")],
    attrs=[Attr("max_range", "float", REQUIRED, "the quantized range, 2^(bits - 1) - 1")],
    doc=__doc__,
)


@dequantize_abs_max.infer_shape
def _(ctx):
    check_scalar(ctx, "Scale")
    ctx.enforce(ctx.attr("max_range") != 0, "max_range must not be 0")
    ctx.set_output("Out", ctx.input_shape("X"), np.float32)
    ctx.share_lod("X", "Out")


@dequantize_abs_max.kernel(dtypes=(np.int8, np.int16, np.float32))
def dequantize_abs_max_kernel(attrs, x, scale):
    s = np.float32(np.asarray(scale).reshape(-1)[0])
    return x.astype(np.float32) * s / np.float32(attrs["max_range"])
