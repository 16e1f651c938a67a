"""Paddle 2.x activations (+ _grad): silu, mish, log1p, expm1, celu, tan, sinh, cosh,
asinh, acosh, atanh, log2, log10, trunc and logit as rows of ops/math/activation.py's table,
and log_softmax along an axis.

    silu:  Out = X * sigmoid(X)
    mish:  Out = X * tanh(sp(X)), sp(X) = X where X > threshold, else log(1 + exp(X))
    log1p: Out = ln(1 + X);  expm1: Out = exp(X) - 1
    celu:  Out = X where X > 0, else alpha * (exp(X / alpha) - 1)
    log_softmax: Out = X - log(sum(exp(X), axis))
                 dX = dOut - exp(Out) * sum(dOut, axis)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.math.activation import Activation, register_activation
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.special import expit


def _silu(a, x):
    return (x * expit(x)).astype(x.dtype, copy=False)


def _silu_grad(a, x, d):
    s = expit(x)
    return (d * s * (1 + x * (1 - s))).astype(d.dtype, copy=False)


def _mish_softplus(x, threshold):
    # Paddle switches to the identity above `threshold` (where log(1 + e^x) == x in float).
    return np.where(x > threshold, x, np.logaddexp(0.0, x))


def _mish(a, x):
    return (x * np.tanh(_mish_softplus(x, a["threshold"]))).astype(x.dtype, copy=False)


def _mish_grad(a, x, d):
    t = np.tanh(_mish_softplus(x, a["threshold"]))
    dsp = np.where(x > a["threshold"], 1.0, expit(x))
    return (d * (t + x * (1 - t * t) * dsp)).astype(d.dtype, copy=False)


for _act in (
    Activation("silu", "X * sigmoid(X)", _silu,
               "dOut * s * (1 + X * (1 - s)), s = sigmoid(X)", _silu_grad, "X", True),
    Activation("mish", "X * tanh(softplus(X)) (softplus(X) = X above threshold)", _mish,
               "dOut * (t + X * (1 - t^2) * sigmoid(X)), t = tanh(softplus(X))", _mish_grad,
               "X", True, FLOATS,
               (Attr("threshold", "float", 20.0, "above it softplus(X) is taken as X"),)),
):
    register_activation(_act)


log_softmax = register_op(
    "log_softmax",
    inputs=[In("X")],
    outputs=[Out("Out", "X's shape: log of the softmax along axis")],
    attrs=[Attr("axis", "int", -1, "the dim normalised over (negative counts from the end)")],
    doc=__doc__,
)


def _axis(ctx, rank: int) -> int:
    axis = ctx.attr("axis")
    ctx.enforce(-max(rank, 1) <= axis < max(rank, 1),
                f"axis must be in [{-max(rank, 1)}, {max(rank, 1)}), got {axis}")
    return axis


@log_softmax.infer_shape
def _(ctx):
    _axis(ctx, len(ctx.input_shape("X")))
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def log_softmax_of(x: np.ndarray, axis: int) -> np.ndarray:
    if x.ndim == 0:
        return np.zeros_like(x)
    shifted = x - x.max(axis=axis, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))).astype(x.dtype)


@log_softmax.kernel(dtypes=FLOATS)
def log_softmax_kernel(attrs, x):
    return log_softmax_of(x, attrs["axis"])


@log_softmax.grad_maker
def _(g):
    return [g.grad_op("log_softmax_grad",
                      inputs={"Out": g.output("Out"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")}, attrs={"axis": g.attr("axis")})]


log_softmax_grad = register_op(
    "log_softmax_grad",
    inputs=[In("Out"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("axis", "int", -1)],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut - exp(Out) * sum(dOut, axis).",
)


@log_softmax_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("Out@GRAD"), ctx.input_dtype("Out@GRAD"))


@log_softmax_grad.kernel(dtypes=FLOATS)
def log_softmax_grad_kernel(attrs, out, dout):
    if out.ndim == 0:
        return np.zeros_like(dout)
    axis = attrs["axis"]
    return (dout - np.exp(out) * dout.sum(axis=axis, keepdims=True)).astype(dout.dtype)


def _celu(a, x):
    alpha = a["alpha"]
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0) / alpha)).astype(x.dtype)


def _celu_grad(a, x, d):
    return np.where(x > 0, d, d * np.exp(np.minimum(x, 0) / a["alpha"])).astype(d.dtype)


for _act in (
    Activation("log1p", "ln(1 + X)", lambda a, x: np.log1p(x),
               "dOut / (1 + X)", lambda a, x, d: d / (1 + x), "X", True),
    Activation("expm1", "exp(X) - 1", lambda a, x: np.expm1(x),
               "dOut * (Out + 1)", lambda a, out, d: d * (out + 1), "Out", True),
    Activation("celu", "X if X > 0 else alpha * (exp(X / alpha) - 1)", _celu,
               "dOut if X > 0 else dOut * exp(X / alpha)", _celu_grad, "X", True, FLOATS,
               (Attr("alpha", "float", 1.0, "the scale of the negative part"),)),
):
    register_activation(_act)


def _logit_x(a, x):
    eps = a["eps"]
    return np.clip(x, eps, 1 - eps) if eps > 0 else x


def _logit(a, x):
    z = _logit_x(a, x)
    return np.log(z / (1 - z)).astype(x.dtype)


def _logit_grad(a, x, d):
    eps = a["eps"]
    inside = (x >= eps) & (x <= 1 - eps) if eps > 0 else np.ones(x.shape, bool)
    return np.where(inside, d / (x * (1 - x)), 0).astype(d.dtype)


# Paddle 2.x's other elementwise math (paddle.tan, sinh, ..., log2, trunc, logit).
for _act in (
    Activation("tan", "tan(X)", lambda a, x: np.tan(x),
               "dOut / cos(X)^2", lambda a, x, d: d / np.cos(x) ** 2, "X", True),
    Activation("sinh", "sinh(X)", lambda a, x: np.sinh(x),
               "dOut * cosh(X)", lambda a, x, d: d * np.cosh(x), "X", True),
    Activation("cosh", "cosh(X)", lambda a, x: np.cosh(x),
               "dOut * sinh(X)", lambda a, x, d: d * np.sinh(x), "X", False),
    Activation("asinh", "asinh(X)", lambda a, x: np.arcsinh(x),
               "dOut / sqrt(X^2 + 1)", lambda a, x, d: d / np.sqrt(x * x + 1), "X", True),
    Activation("acosh", "acosh(X)", lambda a, x: np.arccosh(x),
               "dOut / sqrt(X^2 - 1)", lambda a, x, d: d / np.sqrt(x * x - 1), "X", False),
    Activation("atanh", "atanh(X)", lambda a, x: np.arctanh(x),
               "dOut / (1 - X^2)", lambda a, x, d: d / (1 - x * x), "X", True),
    Activation("log2", "log2(X)", lambda a, x: np.log2(x),
               "dOut / (X ln 2)", lambda a, x, d: d / (x * np.log(2.0)), "X", False),
    Activation("log10", "log10(X)", lambda a, x: np.log10(x),
               "dOut / (X ln 10)", lambda a, x, d: d / (x * np.log(10.0)), "X", False),
    Activation("trunc", "X rounded towards zero", lambda a, x: np.trunc(x),
               "0", lambda a, _, d: np.zeros_like(d), None, True),
    Activation("logit", "log(z / (1 - z)), z = X clipped to [eps, 1 - eps] when eps > 0",
               _logit, "dOut / (X (1 - X)) inside [eps, 1 - eps], else 0", _logit_grad,
               "X", False, FLOATS, (Attr("eps", "float", 1e-6, "the clip of X"),)),
):
    register_activation(_act)
