"""batch_norm (+ batch_norm_grad): per-channel normalisation, Paddle's slots and rules.

X has rank 2 to 5 with channels on axis 1 (data_layout NCHW) or last (NHWC);
Scale, Bias, Mean, Variance are [C]. With mu, var the statistics used and
inv_std = 1 / sqrt(var + epsilon):

    Y = (X - mu) * inv_std * Scale + Bias

Training (is_test=False and use_global_stats=False, or trainable_statistics):
mu and var are the batch's per-channel mean and biased variance, and the
running statistics update in place, as in Paddle (MeanOut is normally the
Mean variable itself):

    MeanOut = momentum * Mean + (1 - momentum) * mu
    VarianceOut = momentum * Variance + (1 - momentum) * var
    SavedMean = mu,  SavedVariance = inv_std

Otherwise (global statistics) mu = Mean and var = Variance, MeanOut and
VarianceOut equal them, and SavedMean / SavedVariance hold mu and inv_std.
`MomentumTensor` (a float tensor [1]) overrides `momentum`. ReserveSpace is
Paddle's cuDNN scratch: here an empty tensor.

Gradients, with xhat = (X - mu) * inv_std and sums over all axes but C (M
elements per channel): dBias = sum dY, dScale = sum dY * xhat, and
dX = Scale * inv_std / M * (M dY - dBias - xhat dScale) with batch statistics,
dX = dY * Scale * inv_std with global ones.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [
    Attr("momentum", "float", 0.9, "the running statistics' decay"),
    Attr("epsilon", "float", 1e-5, "added to the variance"),
    Attr("data_layout", "string", "NCHW", "NCHW (channels on axis 1) or NHWC (last)"),
    Attr("is_test", "bool", False, "inference: use the running statistics"),
    Attr("use_global_stats", "bool", False, "use the running statistics in training too"),
    Attr("trainable_statistics", "bool", False, "use batch statistics even when is_test"),
]
_STATS = ("Scale", "Bias", "Mean", "Variance")

batch_norm = register_op(
    "batch_norm",
    inputs=[In("X"), In("Scale", "[C]"), In("Bias", "[C]"), In("Mean", "[C] running mean"),
            In("Variance", "[C] running variance"),
            In("MomentumTensor", "a float tensor [1]; overrides momentum", dispensable=True)],
    outputs=[Out("Y"), Out("MeanOut", "the updated running mean (in place)"),
             Out("VarianceOut", "the updated running variance (in place)"),
             Out("SavedMean", "the mean used"), Out("SavedVariance", "the inverse std used"),
             Out("ReserveSpace", "empty", dispensable=True)],
    attrs=_ATTRS,
    doc=__doc__,
)


def global_stats(attrs) -> bool:
    test_mode = attrs["is_test"] and not attrs["trainable_statistics"]
    return test_mode or attrs["use_global_stats"]


def _channel_axis(attrs, ndim: int) -> int:
    return ndim - 1 if attrs["data_layout"] == "NHWC" and ndim > 2 else 1


def _check(ctx) -> int:
    x = ctx.input_shape("X")
    layout = ctx.attr("data_layout")
    ctx.enforce(layout in ("NCHW", "NHWC", "AnyLayout"),
                lambda: f"data_layout must be NCHW or NHWC, got {layout!r}")
    ctx.enforce(2 <= len(x) <= 5, lambda: f"X must have rank 2 to 5, got X.shape={shape_str(x)}")
    c = x[_channel_axis(ctx.attrs, len(x))]
    for slot in _STATS:
        shape = ctx.input_shape(slot)
        ctx.enforce(len(shape) == 1 and dims_match(shape[0], c), lambda:
                    f"{slot} must be [C] = [{c}] for X.shape={shape_str(x)} ({layout}), got "
                    f"{slot}.shape={shape_str(shape)}")
    return c


@batch_norm.infer_shape
def _(ctx):
    c = _check(ctx)
    dtype = ctx.input_dtype("X")
    ctx.set_output("Y", ctx.input_shape("X"), dtype)
    ctx.share_lod("X", "Y")
    for slot in ("MeanOut", "VarianceOut", "SavedMean", "SavedVariance"):
        ctx.set_output(slot, [c], ctx.input_dtype("Mean"))
    ctx.set_output("ReserveSpace", [0], dtype)


def _bshape(ndim: int, axis: int) -> tuple[int, ...]:
    return tuple(-1 if i == axis else 1 for i in range(ndim))


def _reduce_axes(ndim: int, axis: int) -> tuple[int, ...]:
    return tuple(i for i in range(ndim) if i != axis)


def _momentum(attrs, momentum_t) -> float:
    """The momentum attribute, or MomentumTensor's one value (a run-time value)."""
    if momentum_t is None:
        return attrs["momentum"]
    values = np.asarray(momentum_t).reshape(-1)
    if values.size != 1:
        raise KernelError(f"batch_norm: MomentumTensor must hold one value, got shape "
                          f"{list(np.shape(momentum_t))}")
    return float(values[0])


@batch_norm.kernel(dtypes=FLOATS)
def batch_norm_dense(attrs, x, scale, bias, mean, var, momentum_t):
    axis = _channel_axis(attrs, x.ndim)
    eps = attrs["epsilon"]
    if global_stats(attrs):
        mu, sigma2 = mean, var
        mean_out, var_out = mean.copy(), var.copy()
    else:
        axes = _reduce_axes(x.ndim, axis)
        mu = x.mean(axis=axes, dtype=np.float64 if x.dtype == np.float32 else None)
        sigma2 = np.square(x - mu.reshape(_bshape(x.ndim, axis)).astype(x.dtype)).mean(
            axis=axes, dtype=mu.dtype)
        mu, sigma2 = mu.astype(mean.dtype), sigma2.astype(var.dtype)
        m = _momentum(attrs, momentum_t)
        mean_out = (mean * m + mu * (1 - m)).astype(mean.dtype)
        var_out = (var * m + sigma2 * (1 - m)).astype(var.dtype)
    inv_std = (1 / np.sqrt(sigma2 + eps)).astype(var.dtype)
    # Y = X * a + b: two passes over X.
    a = (scale * inv_std).astype(x.dtype)
    b = (bias - mu * a).astype(x.dtype)
    shape = _bshape(x.ndim, axis)
    y = x * a.reshape(shape)  # keeps x's memory layout (conv outputs are channels-last)
    y += b.reshape(shape)
    reserve = np.zeros(0, dtype=x.dtype)
    return y, mean_out, var_out, mu.astype(mean.dtype, copy=True), inv_std, reserve


@batch_norm.grad_maker
def _(g):
    inputs = {s: g.input(s) for s in ("X", "Scale", "Bias", "Mean", "Variance")}
    inputs.update({"SavedMean": g.output("SavedMean"),
                   "SavedVariance": g.output("SavedVariance"),
                   "Y@GRAD": g.output_grad("Y")})
    return [g.grad_op("batch_norm_grad", inputs=inputs,
                      outputs={"X@GRAD": g.input_grad("X"), "Scale@GRAD": g.input_grad("Scale"),
                               "Bias@GRAD": g.input_grad("Bias")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


batch_norm_grad = register_op(
    "batch_norm_grad",
    inputs=[In("X"), In("Scale"), In("Bias", no_need_buffer=True),
            In("Mean", dispensable=True), In("Variance", dispensable=True),
            In("SavedMean"), In("SavedVariance"), In("ReserveSpace", dispensable=True),
            In("Y@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("Scale@GRAD", dispensable=True),
             Out("Bias@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Y@GRAD"],
    doc="Gradients of batch_norm w.r.t. X, Scale and Bias (see batch_norm).",
)


@batch_norm_grad.infer_shape
def _(ctx):
    for slot in ("X", "Scale", "Bias"):
        ctx.set_output(grad_name(slot), ctx.input_shape(slot), ctx.input_dtype(slot))
    ctx.share_lod("X", "X@GRAD")


@batch_norm_grad.kernel(dtypes=FLOATS)
def batch_norm_grad_dense(attrs, x, scale, bias, mean, var, saved_mean, saved_inv_std,
                          reserve, dy):
    axis = _channel_axis(attrs, x.ndim)
    shape, axes = _bshape(x.ndim, axis), _reduce_axes(x.ndim, axis)
    if global_stats(attrs):
        mu, inv_std = mean, 1 / np.sqrt(var + attrs["epsilon"])
    else:
        mu, inv_std = saved_mean, saved_inv_std
    xhat = (x - mu.reshape(shape)) * inv_std.reshape(shape)
    dbias = dy.sum(axis=axes)
    dscale = (dy * xhat).sum(axis=axes)
    k = (scale * inv_std).reshape(shape)
    if global_stats(attrs):
        dx = dy * k
    else:
        m = x.size // x.shape[axis]
        dx = k / m * (m * dy - dbias.reshape(shape) - xhat * dscale.reshape(shape))
    return (dx.astype(x.dtype, copy=False), dscale.astype(scale.dtype, copy=False),
            dbias.astype(bias.dtype, copy=False))
