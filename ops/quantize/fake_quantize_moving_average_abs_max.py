"""fake_quantize_moving_average_abs_max: activations onto the grid of a moving average
of their abs-max (quantization-aware training; PaddleSlim's default for activations).

Training (is_test False), with r = moving_rate:

    OutState = r InState + 1;  OutAccum = r InAccum + max |X|;  OutScale = OutAccum / OutState
    Out = quantize(X, OutScale)

Inference (is_test True): Out = quantize(X, InScale); the statistics are not updated
(OutScale, OutState, OutAccum pass InScale, InState, InAccum through: in Paddle's programs
they are the same variables). quantize is fake_quantize_abs_max's rounding (round_type).
No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.quantize.quant_common import (
    bin_count,
    check_bits,
    check_round_type,
    check_scalar,
    moving_average,
    quantize,
)
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

fake_quantize_moving_average_abs_max = register_op(
    "fake_quantize_moving_average_abs_max",
    inputs=[In("X", "the activation to quantize"), In("InScale", "[1]: the current scale"),
            In("InAccum", "[1]: the running sum (training)", dispensable=True),
            In("InState", "[1]: the running count (training)", dispensable=True)],
    outputs=[Out("Out", "X's shape: the quantized values (integers, X's dtype)"),
             Out("OutScale", "[1]: the scale used"),
             Out("OutState", "[1]", dispensable=True), Out("OutAccum", "[1]", dispensable=True)],
    attrs=[Attr("moving_rate", "float", 0.9, "the average's decay r"),
           Attr("bit_length", "int", 8, "quantization bits"),
           Attr("is_test", "bool", False, "quantize with InScale and update nothing"),
           Attr("round_type", "int", 1, "0: half to even, clamped; 1: clip, half away")],
    doc=__doc__,
)


def check_statistics(ctx) -> None:
    """The moving-average slots: one value each; in training InAccum and InState are needed."""
    for slot in ("InAccum", "InState"):
        if ctx.has_input(slot):
            check_scalar(ctx, slot)
        else:
            ctx.enforce(ctx.attr("is_test") or not ctx.has_output(slot.replace("In", "Out")),
                        lambda: f"training (is_test False) needs input {slot} for output "
                        f"{slot.replace('In', 'Out')}")
    if not ctx.attr("is_test"):
        ctx.enforce(ctx.has_input("InAccum") and ctx.has_input("InState"),
                    "training (is_test False) needs inputs InAccum and InState")


@fake_quantize_moving_average_abs_max.infer_shape
def _(ctx):
    check_bits(ctx)
    check_round_type(ctx)
    check_scalar(ctx, "InScale")
    check_statistics(ctx)
    dtype = ctx.input_dtype("X")
    ctx.set_output("Out", ctx.input_shape("X"), dtype)
    ctx.share_lod("X", "Out")
    for slot in ("OutScale", "OutState", "OutAccum"):
        ctx.set_output(slot, [1], dtype)


@fake_quantize_moving_average_abs_max.kernel(dtypes=FLOATS)
def fake_quantize_moving_average_abs_max_kernel(attrs, x, in_scale, in_accum, in_state):
    bins = bin_count(attrs["bit_length"])
    if attrs["is_test"]:
        scale = np.asarray(in_scale, x.dtype).reshape(1)
        state = None if in_state is None else np.asarray(in_state, x.dtype).reshape(1)
        accum = None if in_accum is None else np.asarray(in_accum, x.dtype).reshape(1)
    else:
        scale, state, accum = moving_average(x, in_accum, in_state, attrs["moving_rate"])
    return quantize(x, scale, bins, attrs["round_type"]), scale, state, accum
