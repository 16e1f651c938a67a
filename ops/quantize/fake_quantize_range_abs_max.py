"""fake_quantize_range_abs_max: activations onto the grid of the largest abs-max seen in a
window of recent training steps.

Training (is_test False), with t = Iter[0] and w = window_size: the step's abs-max
m = max |X| goes into slot t mod w of OutScales (the window, kept in its variable across
runs), and

    OutScale = m                         if InScale < m
             = max |OutScales[:min(t, w)]|  else, if the value overwritten was the scale
             = InScale                   otherwise
    Out = quantize(X, OutScale)

Inference (is_test True): Out = quantize(X, InScale), OutScale = InScale. quantize is
fake_quantize_abs_max's rounding (round_type). Iter is advanced by the program's own
increment op, not here. The window is read and written through the scope, as Paddle's
kernel does, so this is a control kernel. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.quantize.quant_common import (
    abs_max,
    bin_count,
    check_bits,
    check_round_type,
    check_scalar,
    quantize,
)
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

fake_quantize_range_abs_max = register_op(
    "fake_quantize_range_abs_max",
    inputs=[In("X", "the activation to quantize"), In("InScale", "[1]: the current scale"),
            In("Iter", "int [1]: the training step (training)", dispensable=True)],
    outputs=[Out("Out", "X's shape: the quantized values (integers, X's dtype)"),
             Out("OutScale", "[1]: the scale used"),
             Out("OutScales", "[window_size]: the recent abs-maxes", dispensable=True)],
    attrs=[Attr("window_size", "int", 10000, "how many steps' abs-maxes are kept"),
           Attr("bit_length", "int", 8, "quantization bits"),
           Attr("is_test", "bool", False, "quantize with InScale and update nothing"),
           Attr("round_type", "int", 1, "0: half to even, clamped; 1: clip, half away")],
    key_inputs=["X"],
    doc=__doc__,
)


@fake_quantize_range_abs_max.infer_shape
def _(ctx):
    check_bits(ctx)
    check_round_type(ctx)
    check_scalar(ctx, "InScale")
    ctx.enforce(ctx.attr("window_size") >= 1,
                lambda: f"window_size must be >= 1, got {ctx.attr('window_size')}")
    if not ctx.attr("is_test"):
        ctx.enforce(ctx.has_input("Iter") and ctx.has_output("OutScales"),
                    "training (is_test False) needs input Iter and output OutScales")
        check_scalar(ctx, "Iter")
    dtype = ctx.input_dtype("X")
    ctx.set_output("Out", ctx.input_shape("X"), dtype)
    ctx.share_lod("X", "Out")
    ctx.set_output("OutScale", [1], dtype)
    ctx.set_output("OutScales", [ctx.attr("window_size")], dtype)


def range_scale(cur: np.ndarray, last: np.ndarray, window: np.ndarray, step: int):
    """(the new scale, the new window) after a step whose abs-max is `cur`."""
    window = window.copy()
    slot = step % window.size
    removed = window[slot]
    window[slot] = cur[0]
    scale = last.copy()
    if scale[0] < cur[0]:
        scale = cur.copy()
    elif abs(removed - scale[0]) < 1e-6:
        size = min(step, window.size)
        if size > 0:
            scale = abs_max(window[:size])
    return scale, window


@fake_quantize_range_abs_max.kernel(dtypes=FLOATS, control=True)
def fake_quantize_range_abs_max_kernel(ctx, attrs, x, in_scale, it):
    data = ctx.value(ctx.input_names("X")[0])
    x = data.numpy()
    last = np.asarray(in_scale, x.dtype).reshape(1)
    if attrs["is_test"]:
        scale = last
    else:
        window_size = attrs["window_size"]
        held = [ctx.value(n) for n in ctx.output_names("OutScales")]
        window = np.zeros(window_size, x.dtype)
        if held and held[0] is not None:
            window = np.asarray(held[0].numpy() if hasattr(held[0], "numpy") else held[0],
                                dtype=x.dtype).reshape(-1)
            if window.size != window_size:
                raise KernelError(f"fake_quantize_range_abs_max: OutScales holds "
                                  f"{window.size} values, but window_size is {window_size}")
        scale, window = range_scale(abs_max(x), last, window, int(np.asarray(it).reshape(-1)[0]))
        for name in ctx.output_names("OutScales"):
            ctx.scope.var(name).value = window
    out = quantize(x, scale, bin_count(attrs["bit_length"]), attrs["round_type"])
    for name in ctx.output_names("Out"):
        ctx.scope.var(name).value = LoDTensor.unchecked(out, data.offsets)
    for name in ctx.output_names("OutScale"):
        ctx.scope.var(name).value = scale
