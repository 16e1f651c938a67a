"""fc: a fully connected layer as one op, Paddle's fused `fc` (its fc_fuse_pass writes it).

    Out = act(Input2 @ W + Bias)     Input2 = Input as [prod(dims[:in_num_col_dims]), rest]

Out has Input's first `in_num_col_dims` dims and then W's columns, and Input's LoD. W is [K, N],
Bias [N] or [1, N] (dispensable). `activation_type` is "" (none), "relu", or
(paddle-ir's load-time pass writes it; Paddle's fc takes only relu)
"hard_swish" with its default constants, x * min(max(x + 3, 0), 6) / 6.

paddle-ir's load-time passes write this op for an inference program's
`matmul_v2` (no transposes) or `mul` of an input by a persistable 2-D weight,
followed by `elementwise_add` of a persistable bias over the last dim and
optionally the activation (paddle_ir/passes/inference.py). The kernel runs the
same matmul, then adds the bias and applies the activation in place on its
fresh result (fused_conv2d's `activate`: hard_swish divides by 6 as a product with 1/6,
an ulp from the separate op). Inference only (no gradient), as in Paddle. With `padding_weights`, W
carries 4 padding rows and columns (Paddle's layout for aligned GEMMs): the weights
used are W[:-4, :-4].
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.nn.fused_conv2d import activate
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

ACTIVATIONS = ("", "relu", "hard_swish")

_op = register_op(
    "fc",
    inputs=[In("Input", "rank >= 2 (or >= in_num_col_dims + 1)"), In("W", "[K, N]"),
            In("Bias", "[N] or [1, N]", dispensable=True)],
    outputs=[Out("Out")],
    attrs=[Attr("in_num_col_dims", "int", 1, "Input's leading dims that become Out's rows"),
           Attr("activation_type", "string", "", "'', 'relu' or 'hard_swish'"),
           Attr("padding_weights", "bool", False, "W holds 4 padding rows and columns")],
    doc=__doc__,
)


_PADDING = 4  # padding_weights: the rows and columns W carries past its weights


@_op.infer_shape
def _(ctx):
    x, w = ctx.input_shape("Input"), ctx.input_shape("W")
    k = ctx.attr("in_num_col_dims")
    act = ctx.attr("activation_type")
    ctx.enforce(act in ACTIVATIONS, lambda: f"activation_type must be one of "
                                    f"{', '.join(map(repr, ACTIVATIONS))}, got {act!r}")
    ctx.enforce(len(w) == 2, lambda: f"W must be 2-D [K, N], got W.shape={shape_str(w)}")
    if ctx.attr("padding_weights"):
        w = tuple(d - _PADDING if d >= 0 else d for d in w)
    ctx.enforce(1 <= k < len(x), lambda: f"in_num_col_dims must be in [1, {len(x) - 1}] for "
                                 f"Input.shape={shape_str(x)}, got {k}")
    rest = x[k:]
    cols = -1 if any(d < 0 for d in rest) else math.prod(rest)
    ctx.enforce(dims_match(cols, w[0]), lambda:
                f"Input's trailing dims {shape_str(rest)} hold {cols} values a row but W has "
                f"{w[0]} rows (W.shape={shape_str(w)}, in_num_col_dims={k})")
    if ctx.has_input("Bias"):
        b = ctx.input_shape("Bias")
        ctx.enforce(len(b) in (1, 2) and dims_match(b[-1], w[1])
                    and (len(b) == 1 or dims_match(b[0], 1)),
                    lambda: f"Bias must be [{w[1]}] or [1, {w[1]}], got Bias.shape={shape_str(b)}")
    ctx.enforce(ctx.input_dtype("Input") == ctx.input_dtype("W"),
                lambda: f"Input and W must have one dtype, got {ctx.input_dtype('Input')} and "
                f"{ctx.input_dtype('W')}")
    ctx.set_output("Out", list(x[:k]) + [w[1]], ctx.input_dtype("Input"))
    ctx.share_lod("Input", "Out")  # as Paddle's fc (and mul, whose rows it keeps) does


@_op.kernel(dtypes=FLOATS)
def fc_kernel(attrs, x, w, bias):
    k = attrs["in_num_col_dims"]
    if attrs["padding_weights"]:
        w = w[:-_PADDING, :-_PADDING]
    width = math.prod(x.shape[k:])
    if width != w.shape[0]:
        raise KernelError(f"fc: Input {list(x.shape)} gives rows of {width} values but W has "
                          f"{w.shape[0]} rows")
    if bias is not None and bias.size != w.shape[1]:
        raise KernelError(f"fc: Bias {list(bias.shape)} must hold {w.shape[1]} values")
    # The product as matmul_v2 (k = rank - 1: numpy's matmul over the leading dims) or mul
    # (the rows flattened) computes it, so that fusing them changes no bit; a fresh array.
    if k == x.ndim - 1:
        out = np.matmul(x, w)
    else:
        out = (x.reshape(-1, width) @ w).reshape(*x.shape[:k], w.shape[1])
    if bias is not None:
        out += bias.reshape(-1).astype(out.dtype, copy=False)
    return activate(out, attrs["activation_type"], 0.0, 0.0)
