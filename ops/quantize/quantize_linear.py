"""quantize_linear and dequantize_linear: the quantize/dequantize pairs of Paddle 2.x
quantized models (PaddleSlim's QAT and PTQ exports, ONNX-style QDQ).

quantize_linear, bin_cnt = 2^(bit_length - 1) - 1, scale per tensor (quant_axis < 0:
Scale [1]) or per channel of quant_axis (Scale [X.shape[quant_axis]]):

    round_type 0: Y = clamp(round_half_even(bin_cnt / s * X), -bin_cnt - 1, bin_cnt)
    round_type 1: Y = round_half_away(bin_cnt / s * clip(X, -s, s))

Y holds integers in X's float dtype. qmin and qmax are accepted and, as in Paddle's CPU
kernel, not read: the bounds come from bit_length. Training (is_test False, per tensor)
first updates the moving-average scale as fake_quantize_moving_average_abs_max does
(OutState, OutAccum, OutScale from InState, InAccum) and quantizes with it; only_observer
leaves Y = X.

dequantize_linear: Y = X * s / bin_cnt, per tensor or per channel as above; an int8/int16
X gives Scale's float dtype. ZeroPoint is read by neither (Paddle's are symmetric: zero).
No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.quantize.quant_common import (
    bin_count,
    channel_shape,
    check_bits,
    check_round_type,
    moving_average,
    quantize,
)
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_SLOTS_IN = [In("X", "the tensor"), In("Scale", "[1] per tensor, [C] per channel"),
             In("ZeroPoint", "zeros, Scale's shape (not read)", dispensable=True),
             In("InAccum", "[1]: the running sum (training)", dispensable=True),
             In("InState", "[1]: the running count (training)", dispensable=True)]
_SLOTS_OUT = [Out("Y", "X's shape"), Out("OutState", "[1]", dispensable=True),
              Out("OutAccum", "[1]", dispensable=True), Out("OutScale", "[1]", dispensable=True)]
_ATTRS = [Attr("quant_axis", "int", 0, "the channel axis; < 0: one scale for the tensor"),
          Attr("bit_length", "int", 8, "quantization bits"),
          Attr("qmin", "int", -128, "not read (Paddle's kernel bounds by bit_length)"),
          Attr("qmax", "int", 127, "not read (Paddle's kernel bounds by bit_length)"),
          Attr("round_type", "int", 0, "0: half to even, clamped; 1: clip, half away"),
          Attr("is_test", "bool", True, "use Scale as given; update nothing"),
          Attr("only_observer", "bool", False, "update the scale only: Y = X"),
          Attr("moving_rate", "float", 0.9, "the training average's decay")]

quantize_linear = register_op("quantize_linear", inputs=_SLOTS_IN, outputs=_SLOTS_OUT,
                              attrs=_ATTRS, doc=__doc__)
dequantize_linear = register_op("dequantize_linear", inputs=_SLOTS_IN, outputs=_SLOTS_OUT,
                                attrs=_ATTRS, key_inputs=["X"], dtype_from="Scale",
                                doc="Y = X * Scale / (2^(bit_length - 1) - 1), per tensor or "
                                    "per channel of quant_axis (see quantize_linear).")


def _check(ctx) -> None:
    check_bits(ctx)
    check_round_type(ctx)
    x, scale, axis = ctx.input_shape("X"), ctx.input_shape("Scale"), ctx.attr("quant_axis")
    if axis >= 0:
        ctx.enforce(axis < len(x), lambda: f"quant_axis {axis} is not an axis of X {shape_str(x)}")
        ctx.enforce(len(scale) == 1 and (scale[0] < 0 or x[axis] < 0 or scale[0] == x[axis]
                                         or scale[0] == 1),
                    lambda: f"Scale must hold one scale per channel of axis {axis} ([{x[axis]}]), "
                    f"got {shape_str(scale)}")
    else:
        ctx.enforce(any(d < 0 for d in scale) or int(np.prod(scale)) == 1, lambda:
                    f"Scale must hold one value when quant_axis < 0, got {shape_str(scale)}")


def _scale_for(x_ndim: int, scale: np.ndarray, axis: int) -> np.ndarray:
    """The scale broadcast over X: one value, or one per channel of `axis`."""
    scale = np.asarray(scale).reshape(-1)
    if axis < 0 or scale.size == 1:
        return scale[:1].reshape((1,) * x_ndim)
    return scale.reshape(channel_shape(x_ndim, axis))


@quantize_linear.infer_shape
def _(ctx):
    _check(ctx)
    if not ctx.attr("is_test"):
        ctx.enforce(ctx.has_input("InAccum") and ctx.has_input("InState"),
                    "training (is_test False) needs inputs InAccum and InState")
    dtype = ctx.input_dtype("X")
    ctx.set_output("Y", ctx.input_shape("X"), dtype)
    ctx.share_lod("X", "Y")
    for slot in ("OutState", "OutAccum", "OutScale"):
        ctx.set_output(slot, [1], dtype)


@quantize_linear.kernel(dtypes=FLOATS)
def quantize_linear_kernel(attrs, x, scale, zero_point, in_accum, in_state):
    state = accum = out_scale = None
    if attrs["is_test"]:
        scale = _scale_for(x.ndim, np.asarray(scale, x.dtype), attrs["quant_axis"])
    else:
        out_scale, state, accum = moving_average(x, in_accum, in_state, attrs["moving_rate"])
        scale = out_scale.reshape((1,) * x.ndim)
    bins = bin_count(attrs["bit_length"])
    y = x.copy() if attrs["only_observer"] else quantize(x, scale, bins, attrs["round_type"])
    return y, state, accum, out_scale


@dequantize_linear.infer_shape
def _(ctx):
    _check(ctx)
    x_dtype = ctx.input_dtype("X")
    dtype = x_dtype if x_dtype.kind == "f" else ctx.input_dtype("Scale")
    ctx.set_output("Y", ctx.input_shape("X"), dtype)
    ctx.share_lod("X", "Y")
    for slot in ("OutState", "OutAccum", "OutScale"):
        ctx.enforce(not ctx.has_output(slot), lambda:
                    f"dequantize_linear updates no statistics: output {slot} must not be set")


@dequantize_linear.kernel(dtypes=FLOATS + (np.dtype(np.int8), np.dtype(np.int16),
                                           np.dtype(np.int32)))
def dequantize_linear_kernel(attrs, x, scale, zero_point, in_accum, in_state):
    scale = np.asarray(scale)
    dtype = x.dtype if x.dtype.kind == "f" else scale.dtype
    s = _scale_for(x.ndim, scale.astype(dtype), attrs["quant_axis"])
    y = x.copy() if attrs["only_observer"] else x.astype(dtype) * s / dtype.type(
        bin_count(attrs["bit_length"]))
    return y, None, None, None
