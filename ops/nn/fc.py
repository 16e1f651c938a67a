"""fc: the fully connected op Paddle's inference passes write (mul + elementwise_add
[+ relu] fused into one), no gradient, as in Paddle.

    X2  = Input flattened to 2-D at in_num_col_dims: [prod(dims[:k]), prod(dims[k:])]
    Out = act(X2 @ W + Bias)      act: activation_type, "" (none) or "relu"
    Out.shape = Input.shape[:in_num_col_dims] + [W.shape[1]], with Input's LoD

With padding_weights, W carries 4 padding rows and columns (Paddle's layout for
aligned GEMMs): the weights used are W[:-4, :-4].
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

fc = register_op(
    "fc",
    inputs=[In("Input"), In("W", "[K, N] (padding_weights: [K + 4, N + 4])"),
            In("Bias", "[N] or [1, N]", dispensable=True)],
    outputs=[Out("Out", "Input.shape[:in_num_col_dims] + [N]")],
    attrs=[Attr("in_num_col_dims", "int", 1, "Input's dims before it become the rows"),
           Attr("activation_type", "string", "", "\"\" or \"relu\""),
           Attr("padding_weights", "bool", False, "W holds 4 padding rows and columns")],
    doc=__doc__,
)


def _weights_shape(ctx) -> tuple[int, int]:
    w = ctx.input_shape("W")
    ctx.enforce(len(w) == 2, f"W must be 2-D, got {shape_str(w)}")
    pad = 4 if ctx.attr("padding_weights") else 0
    return tuple(d - pad if d >= 0 else d for d in w)


@fc.infer_shape
def _(ctx):
    x = ctx.input_shape("Input")
    k = ctx.attr("in_num_col_dims")
    ctx.enforce(1 <= k < max(len(x), 2), f"in_num_col_dims must be in [1, {len(x)}) for "
                                         f"Input {shape_str(x)}, got {k}")
    rows_in, cols = _weights_shape(ctx)
    width = -1 if any(d < 0 for d in x[k:]) else math.prod(x[k:])
    ctx.enforce(width < 0 or rows_in < 0 or width == rows_in,
                f"Input flattened at {k} has {width} columns, but W has {rows_in} rows "
                f"(Input {shape_str(x)}, W {shape_str(ctx.input_shape('W'))})")
    if ctx.has_input("Bias"):
        b = ctx.input_shape("Bias")
        ctx.enforce(len(b) in (1, 2) and b[-1] in (cols, -1) and (len(b) == 1 or b[0] in (1, -1)),
                    f"Bias must be [{cols}] or [1, {cols}], got {shape_str(b)}")
    ctx.enforce(ctx.attr("activation_type") in ("", "relu"),
                f"activation_type must be \"\" or \"relu\", got {ctx.attr('activation_type')!r}")
    ctx.set_output("Out", tuple(x[:k]) + (cols,), ctx.input_dtype("Input"))
    ctx.share_lod("Input", "Out")


@fc.kernel(dtypes=FLOATS)
def fc_kernel(attrs, x, w, bias):
    k = attrs["in_num_col_dims"]
    if attrs["padding_weights"]:
        w = w[:-4, :-4]
    out = x.reshape(math.prod(x.shape[:k]), -1) @ w
    if bias is not None:
        out += bias.reshape(1, -1)
    if attrs["activation_type"] == "relu":
        np.maximum(out, 0, out=out)
    return out.reshape(x.shape[:k] + (w.shape[1],))
