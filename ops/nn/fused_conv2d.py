"""fused_conv2d: a convolution, its bias, a residual sum and an activation as one op.

Paddle's inference passes (conv_bias / conv_elementwise_add / conv_activation
fuse) write this op; paddle-ir's load-time passes write it for an inference
program's `conv2d` or `depthwise_conv2d` followed by `elementwise_add` of a
per-channel bias, optionally an `elementwise_add` of a same-shaped tensor, and
optionally an activation (paddle_ir/passes/inference.py):

    Output = act(conv2d(Input, Filter) + Bias[None, :, None, None] + ResidualData)

conv2d's slots and attributes (see ops/nn/conv.py); Bias [OC] and ResidualData
(Output's shape) are dispensable. `fuse_activation` is "" (none) or one of

    relu          max(x, 0)
    relu6         min(max(x, 0), fuse_beta)           (fuse_beta: relu6's threshold)
    leaky_relu    x if x > 0 else fuse_alpha * x
    hard_sigmoid  min(max(fuse_alpha * x + fuse_beta, 0), 1)   (slope, offset)
    hard_swish    x * min(max(x + 3, 0), 6) / 6

Speed: the products are conv2d's; the bias, the residual and the activation are
applied in place on the convolution's fresh output (no temporaries, one op's
dispatch instead of up to three), over its memory in the order it lies, with the
operations of the separate ops, so the result has the same bits, except where an
expanding pointwise convolution folds the bias into its GEMM (ops/nn/conv_math.py:
an ulp at most) and in hard_swish, whose division by 6 is a product with 1/6 (an
ulp at most). A 1x1 convolution of a 1x1 map (a squeeze-excite block's) is one
matrix-vector product per image with its bias and activation on the [N, OC]
result, none of the layout dispatch. NCHW only; inference only (no gradient: the
passes never touch a training program).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.nn import conv_math as cm
from paddle_ir.ops.nn.conv import _COMMON_ATTRS, _conv_infer, geometry
from paddle_ir.ops.nn.conv_bias import memory_order
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

ACTIVATIONS = ("", "relu", "relu6", "leaky_relu", "hard_sigmoid", "hard_swish")
# the output size from which the activation runs over the memory in its own order
_FLAT_ACTIVATION_VALUES = 1 << 14

_op = register_op(
    "fused_conv2d",
    inputs=[In("Input", "[N, C, H, W]"), In("Filter", "[OC, C/groups, kh, kw]"),
            In("Bias", "[OC], added to every output pixel", dispensable=True),
            In("ResidualData", "Output's shape, added after the bias", dispensable=True)],
    outputs=[Out("Output")],
    attrs=_COMMON_ATTRS + [
        Attr("fuse_activation", "string", "", "the activation applied last (see the doc)"),
        Attr("fuse_alpha", "float", 0.0, "leaky_relu's alpha, hard_sigmoid's slope"),
        Attr("fuse_beta", "float", 0.0, "relu6's threshold, hard_sigmoid's offset"),
    ],
    doc=__doc__,
)


@_op.infer_shape
def _(ctx):
    act = ctx.attr("fuse_activation")
    ctx.enforce(act in ACTIVATIONS, lambda: f"fuse_activation must be one of "
                                    f"{', '.join(map(repr, ACTIVATIONS))}, got {act!r}")
    ctx.enforce(ctx.attr("data_format") in ("NCHW", "AnyLayout"), lambda:
                f"fused_conv2d takes NCHW input, got data_format={ctx.attr('data_format')!r}")
    _conv_infer(ctx)
    out = ctx.var_info(ctx.output_names("Output")[0]).shape
    if ctx.has_input("Bias"):
        b = ctx.input_shape("Bias")
        ctx.enforce(len(b) == 1 and dims_match(b[0], out[1]),
                    lambda: f"Bias must be [{out[1]}] (one value per output channel), got "
                    f"Bias.shape={shape_str(b)}")
    if ctx.has_input("ResidualData"):
        r = ctx.input_shape("ResidualData")
        same = len(r) == len(out) and all(dims_match(a, b)
                                          for a, b in zip(r, out, strict=True))
        ctx.enforce(same,
                    lambda: f"ResidualData must have Output's shape {shape_str(out)}, got "
                    f"ResidualData.shape={shape_str(r)}")


def activate(out: np.ndarray, act: str, alpha: float, beta: float) -> np.ndarray:
    """Apply `act` to `out` in place, with the operations of the activation ops' kernels."""
    if act == "relu":
        np.maximum(out, out.dtype.type(0), out=out)
    elif act == "relu6":
        np.clip(out, 0, beta, out=out)
    elif act == "leaky_relu":
        np.multiply(out, alpha, out=out, where=~(out > 0))
    elif act == "hard_sigmoid":
        np.multiply(out, alpha, out=out)
        np.add(out, beta, out=out)
        np.clip(out, 0, 1, out=out)
    elif act == "hard_swish":
        # clip(x + 3, 0, 6) as clip(x, -3, 3) + 3 (the same values: the clip's output is a
        # fresh array, no add into a temporary first), and the division by 6 as a product
        # with 1/6 (within an ulp; a division costs several products): 25% less time over
        # the first layer of MobileNet v3 ([12544, 16]: 0.12 against 0.15 ms)
        gate = np.clip(out, -3.0, 3.0)
        np.add(gate, 3.0, out=gate)
        np.multiply(out, gate, out=out)
        np.multiply(out, out.dtype.type(1.0 / 6.0), out=out)
    return out


@_op.kernel(dtypes=FLOATS)
def fused_conv2d_kernel(attrs, x, w, bias, residual):
    if bias is not None and bias.shape != (w.shape[0],):
        raise KernelError(f"fused_conv2d: Bias must be [{w.shape[0]}], got {list(bias.shape)}")
    geo = geometry(attrs, x.shape[2:], w.shape[2:])
    if x.shape[2:] == (1, 1) and residual is None and cm.is_pointwise(w.shape, geo) \
            and geo.groups == 1:
        return _squeeze_excite(attrs, x, w, bias)
    # a fresh array, with the bias (folded into the product where that pays: conv_math)
    out = cm.forward(x, w, geo, bias)
    if residual is not None:
        if residual.shape != out.shape:
            raise KernelError(f"fused_conv2d: ResidualData must have Output's shape "
                              f"{list(out.shape)}, got {list(residual.shape)}")
        out += residual
    act = attrs["fuse_activation"]
    if act:
        # elementwise: over a large output's memory in its own order (one flat loop), not
        # the NCHW view; a small one's order costs more to find than it saves
        order = memory_order(out) if out.size >= _FLAT_ACTIVATION_VALUES else None
        activate(out if order is None else order[0], act, attrs["fuse_alpha"],
                 attrs["fuse_beta"])
    return out


def _squeeze_excite(attrs, x, w, bias) -> np.ndarray:
    """A 1x1 convolution of a 1x1 map: W [OC, C] @ X[n] [C, 1] (conv_math's product of NCHW
    memory, so the same bits), the bias and the activation over the [N, OC] result.
    Python is most of such a call's time (MobileNet v3 has 18 a run): one us less a call
    than through conv_math ([1, 144, 1, 1] -> 576 with hard_sigmoid: 14.9 against 16.0
    us; [1, 576, 1, 1] -> 144 with relu: 10.9 against 11.7)."""
    n, c = x.shape[:2]
    oc = w.shape[0]
    out = np.matmul(w.reshape(oc, c), x.reshape(n, c, 1)).reshape(n, oc)
    if bias is not None:
        out += bias.astype(out.dtype, copy=False)
    act = attrs["fuse_activation"]
    if act:
        activate(out, act, attrs["fuse_alpha"], attrs["fuse_beta"])
    return out.reshape(n, oc, 1, 1)
