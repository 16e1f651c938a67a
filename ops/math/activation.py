"""Elementwise activations (+ their _grad ops): relu, sigmoid, tanh, exp, log, sqrt, square,
abs, sign, softplus, and the ones vision and attention models use: relu6, leaky_relu,
hard_sigmoid, hard_swish, swish, gelu (formulas in their rows and Paddle's attributes);
Paddle 2.x's silu, mish, celu and logit, and log_softmax along an axis:

    silu:  Out = X * sigmoid(X)
    mish:  Out = X * tanh(sp(X)), sp(X) = X where X > threshold, else log(1 + exp(X))
    celu:  Out = X where X > 0, else alpha * (exp(X / alpha) - 1)
    logit: Out = log(z / (1 - z)), z = X clipped to [eps, 1 - eps] when eps > 0
    log_softmax: Out = X - log(sum(exp(X), axis))
                 dX = dOut - exp(Out) * sum(dOut, axis)

Each is one `Activation` row: the forward formula as a function of X, the
gradient as a function of dOut and the one tensor it needs (X or Out, as in
Paddle: relu_grad, sigmoid_grad, tanh_grad, exp_grad and sqrt_grad read Out;
log_grad, square_grad, abs_grad and softplus_grad read X; sign_grad reads
neither, its gradient is zero). Out has X's shape, dtype and LoD.

The math lives in plain functions of (attrs, array) so that other storage
types reuse it (the dense kernels run a 0-D input as shape [1], since numpy's
ufuncs return scalars for 0-D arrays): the zero-preserving activations
(f(0) = 0, listed in `ZERO_PRESERVING`) map a SelectedRows to a SelectedRows
by applying `forward` to its stored rows (ops/storage.py, `register_rowwise`; duplicate rows are
summed first). The others have a dense Out, and a SelectedRows input is
densified by the op's fallback (with a warning) and the dense kernel runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import (
    FLOATS,
    NUMERIC,
    SMALL_INTS,
    Attr,
    AttrSpec,
    In,
    Out,
    register_op,
)
from paddle_ir.ops.special import erf, expit
from paddle_ir.ops.storage import register_rowwise
from paddle_ir.ops.tensor_attrs import TensorAttr, tensor_attr_inputs, with_tensor_attrs


@dataclass(frozen=True)
class Activation:
    """One elementwise activation: its forward and grad functions and formulas."""

    name: str
    formula: str
    forward: Callable[[dict, np.ndarray], np.ndarray]  # (attrs, X) -> Out
    grad_formula: str
    grad: Callable[[dict, np.ndarray | None, np.ndarray], np.ndarray]  # (attrs, dep, dOut)
    grad_reads: str | None  # "X", "Out" or None: the forward tensor grad needs
    zero_preserving: bool
    dtypes: tuple = FLOATS
    attrs: tuple[AttrSpec, ...] = ()
    # inputs overriding attributes at run time (pow's FactorTensor; ops/tensor_attrs.py)
    tensor_attrs: tuple[TensorAttr, ...] = ()


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) without overflow: exp only ever sees -|x|."""
    e = np.abs(x)
    np.exp(np.negative(e, out=e), out=e)
    out = np.add(e, 1)
    np.reciprocal(out, out=out)  # 1 / (1 + e): sigmoid(|x|)
    np.multiply(out, e, out=out, where=x < 0)  # e / (1 + e) = sigmoid(-|x|)
    return out


def _softplus(attrs, x):
    beta, threshold = attrs["beta"], attrs["threshold"]
    bx = x * beta
    soft = np.logaddexp(0.0, bx) / beta  # log(1 + exp(bx)) / beta, stable for large bx
    return np.where(bx > threshold, x, soft).astype(x.dtype, copy=False)


def _softplus_grad(attrs, x, dout):
    bx = x * attrs["beta"]
    return np.where(bx > attrs["threshold"], dout, dout * _sigmoid(bx)).astype(dout.dtype,
                                                                                copy=False)


_SOFTPLUS_ATTRS = (
    Attr("beta", "float", 1.0, "the sharpness: softplus(x) = log(1 + exp(beta * x)) / beta"),
    Attr("threshold", "float", 20.0, "where beta * x > threshold, Out = x (linear)"),
)

def _hard_swish(a, x):
    # x * clip(x + offset, 0, threshold) / scale in one buffer (the same operations in the
    # same order as the expression, so the same bits, without its three temporaries).
    out = np.add(x, a["offset"], out=np.empty_like(x))  # out=: a 0-D X stays an array
    np.clip(out, 0, a["threshold"], out=out)
    np.multiply(x, out, out=out)
    np.divide(out, a["scale"], out=out)
    return out.astype(x.dtype, copy=False)


def _hard_sigmoid(a, x):
    out = np.multiply(x, a["slope"], out=np.empty_like(x))
    np.add(out, a["offset"], out=out)
    np.clip(out, 0, 1, out=out)
    return out.astype(x.dtype, copy=False)


def _hard_swish_grad(a, x, d):
    shifted = x + a["offset"]
    slope = np.where(shifted < a["threshold"], (2 * x + a["offset"]) / a["scale"],
                     a["threshold"] / a["scale"])
    return (d * np.where(shifted > 0, slope, 0)).astype(d.dtype, copy=False)


def _swish_grad(a, x, d):
    s = _sigmoid(x * a["beta"])
    return (d * (s + x * a["beta"] * s * (1 - s))).astype(d.dtype, copy=False)


_GELU_C = np.sqrt(2 / np.pi)
_INV_SQRT2 = float(1 / np.sqrt(2))


def _gelu(a, x):
    # One buffer in X's dtype (float32 stays float32: np.sqrt(2), a float64 scalar, used to
    # promote the whole erf form to float64 and back), updated in place.
    if a["approximate"]:
        out = np.multiply(x, x, out=np.empty_like(x))
        np.multiply(out, x, out=out)
        np.multiply(out, 0.044715, out=out)
        np.add(out, x, out=out)
        np.multiply(out, float(_GELU_C), out=out)
        np.tanh(out, out=out)
    else:
        out = np.multiply(x, _INV_SQRT2, out=np.empty_like(x))
        erf(out, out=out)
    np.add(out, 1, out=out)
    np.multiply(out, x, out=out)
    np.multiply(out, 0.5, out=out)
    return out.astype(x.dtype, copy=False)


def _gelu_grad(a, x, d):
    if a["approximate"]:
        t = np.tanh(_GELU_C * (x + 0.044715 * x ** 3))
        dt = (1 - t * t) * _GELU_C * (1 + 3 * 0.044715 * x * x)
        return (d * 0.5 * (1 + t + x * dt)).astype(d.dtype, copy=False)
    pdf = np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)
    return (d * (0.5 * (1 + erf(x / np.sqrt(2))) + x * pdf)).astype(d.dtype, copy=False)


ACTIVATIONS: tuple[Activation, ...] = (
    Activation("relu", "max(X, 0)", lambda a, x: np.maximum(x, x.dtype.type(0)),
               "dOut * (Out > 0)", lambda a, out, d: d * (out > 0), "Out", True, NUMERIC),
    Activation("sigmoid", "1 / (1 + exp(-X))", lambda a, x: _sigmoid(x),
               "dOut * Out * (1 - Out)", lambda a, out, d: d * out * (1 - out), "Out", False),
    Activation("tanh", "tanh(X)", lambda a, x: np.tanh(x),
               "dOut * (1 - Out^2)", lambda a, out, d: d * (1 - out * out), "Out", True),
    Activation("exp", "exp(X)", lambda a, x: np.exp(x),
               "dOut * Out", lambda a, out, d: d * out, "Out", False),
    Activation("log", "ln(X)", lambda a, x: np.log(x),
               "dOut / X", lambda a, x, d: d / x, "X", False),
    Activation("sqrt", "sqrt(X)", lambda a, x: np.sqrt(x),
               "dOut * 0.5 / Out", lambda a, out, d: d * 0.5 / out, "Out", True),
    Activation("square", "X^2", lambda a, x: np.square(x),
               "dOut * 2 * X", lambda a, x, d: d * 2 * x, "X", True, NUMERIC),
    Activation("abs", "|X|", lambda a, x: np.abs(x),
               "dOut * sign(X)", lambda a, x, d: d * np.sign(x), "X", True, NUMERIC),
    Activation("sign", "sign(X) in {-1, 0, 1}", lambda a, x: np.sign(x),
               "0", lambda a, _, d: np.zeros_like(d), None, True, NUMERIC + SMALL_INTS),
    Activation("softplus", "log(1 + exp(beta * X)) / beta (X where beta * X > threshold)",
               _softplus, "dOut * sigmoid(beta * X) (dOut where beta * X > threshold)",
               _softplus_grad, "X", False, FLOATS, _SOFTPLUS_ATTRS),
    Activation("relu6", "min(max(X, 0), threshold)",
               lambda a, x: np.clip(x, 0, a["threshold"]).astype(x.dtype, copy=False),
               "dOut where 0 < Out < threshold, else 0",
               lambda a, out, d: d * ((out > 0) & (out < a["threshold"])), "Out", True, FLOATS,
               (Attr("threshold", "float", 6.0, "the upper clip"),)),
    Activation("leaky_relu", "X if X > 0 else alpha * X",
               lambda a, x: np.where(x > 0, x, x * a["alpha"]).astype(x.dtype, copy=False),
               "dOut if X > 0 else alpha * dOut",
               lambda a, x, d: np.where(x > 0, d, d * a["alpha"]).astype(d.dtype, copy=False),
               "X", True, FLOATS, (Attr("alpha", "float", 0.02, "the slope for X <= 0"),)),
    Activation("hard_sigmoid", "min(max(slope * X + offset, 0), 1)",
               _hard_sigmoid,
               "slope * dOut where 0 < Out < 1, else 0",
               lambda a, out, d: d * a["slope"] * ((out > 0) & (out < 1)), "Out", False, FLOATS,
               (Attr("slope", "float", 0.2, "the slope"), Attr("offset", "float", 0.5,
                                                                 "the offset"))),
    Activation("hard_swish", "X * min(max(X + offset, 0), threshold) / scale", _hard_swish,
               "dOut * (2X + offset) / scale where 0 < X + offset < threshold, "
               "threshold / scale above, 0 below", _hard_swish_grad, "X", True, FLOATS,
               (Attr("threshold", "float", 6.0, "the upper clip of X + offset"),
                Attr("scale", "float", 6.0, "the divisor"),
                Attr("offset", "float", 3.0, "added to X before clipping"))),
    Activation("swish", "X * sigmoid(beta * X)",
               lambda a, x: (x * _sigmoid(x * a["beta"])).astype(x.dtype, copy=False),
               "dOut * (s + beta * X * s * (1 - s)), s = sigmoid(beta * X)", _swish_grad, "X",
               True, FLOATS, (Attr("beta", "float", 1.0, "the sigmoid's sharpness"),)),
    Activation("gelu", "X * Phi(X) (0.5 X (1 + erf(X / sqrt 2))); approximate: "
               "0.5 X (1 + tanh(sqrt(2 / pi) (X + 0.044715 X^3)))", _gelu,
               "dOut * d gelu / dX", _gelu_grad, "X", True, FLOATS,
               (Attr("approximate", "bool", False, "use the tanh approximation"),)),
)
ZERO_PRESERVING = tuple(a.name for a in ACTIVATIONS if a.zero_preserving)


def _infer_same_as(src: str, dst: str):
    def infer(ctx):
        same_as_input(ctx, src, dst)

    return infer


def _dense_kernel(fn, name: str):
    def kernel(attrs, x):
        if x.ndim == 0:  # numpy's ufuncs turn 0-D arrays into scalars; work on [1]
            return fn(attrs, x.reshape(1)).reshape(())
        return fn(attrs, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _dense_grad_kernel(fn, name: str, reads: bool):
    if reads:
        def kernel(attrs, dep, dout):
            if dout.ndim == 0:
                return fn(attrs, dep.reshape(1), dout.reshape(1)).reshape(())
            return fn(attrs, dep, dout)
    else:
        def kernel(attrs, dout):
            return fn(attrs, None, dout)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _grad_maker(act: Activation):
    def maker(g):
        inputs = {"Out@GRAD": g.output_grad("Out")}
        if act.grad_reads == "X":
            inputs["X"] = g.input("X")
        elif act.grad_reads == "Out":
            inputs["Out"] = g.output("Out")
        for slot in (s for t in act.tensor_attrs for s in t.slots()):
            if g.input(slot):
                inputs[slot] = g.input(slot)
        return [g.grad_op(act.name + "_grad", inputs=inputs,
                          outputs={"X@GRAD": g.input_grad("X")},
                          attrs={s.name: g.attr(s.name) for s in act.attrs})]

    return maker


def _register(act: Activation) -> None:
    fwd = register_op(
        act.name,
        inputs=[In("X")] + tensor_attr_inputs(act.tensor_attrs),
        outputs=[Out("Out", "f(X), with X's shape, dtype and LoD")],
        attrs=act.attrs,
        fallback=True,
        doc=f"Out = {act.formula}, elementwise.",
    )
    fwd.infer_shape(_infer_same_as("X", "Out"))
    fwd.kernel(dtypes=act.dtypes)(with_tensor_attrs(
        act.name, act.tensor_attrs, 1, _dense_kernel(act.forward, f"{act.name}_dense")))
    if act.zero_preserving:
        register_rowwise(fwd, act.forward)
    fwd.grad_maker(_grad_maker(act))

    reads = [act.grad_reads] if act.grad_reads else []
    bwd = register_op(
        act.name + "_grad",
        inputs=[In(slot) for slot in reads] + tensor_attr_inputs(act.tensor_attrs)
        + [In("Out@GRAD")],
        outputs=[Out("X@GRAD", dispensable=True)],
        attrs=act.attrs,
        key_inputs=reads + ["Out@GRAD"],
        dtype_from="Out@GRAD",
        fallback=True,
        doc=f"dX = {act.grad_formula}.",
    )
    bwd.infer_shape(_infer_same_as("Out@GRAD", "X@GRAD"))
    bwd.kernel(dtypes=FLOATS)(with_tensor_attrs(
        act.name + "_grad", act.tensor_attrs, len(reads),
        _dense_grad_kernel(act.grad, f"{act.name}_grad_dense", bool(reads))))


for _act in ACTIVATIONS:
    _register(_act)


# Other op families (ops/math/unary_math.py) register their rows through the same machinery.
register_activation = _register


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


def _celu(a, x):
    alpha = a["alpha"]
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0) / alpha)).astype(x.dtype)


def _celu_grad(a, x, d):
    return np.where(x > 0, d, d * np.exp(np.minimum(x, 0) / a["alpha"])).astype(d.dtype)


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


# Paddle 2.x's activations.
for _act in (
    Activation("silu", "X * sigmoid(X)", _silu,
               "dOut * s * (1 + X * (1 - s)), s = sigmoid(X)", _silu_grad, "X", True),
    Activation("mish", "X * tanh(softplus(X)) (softplus(X) = X above threshold)", _mish,
               "dOut * (t + X * (1 - t^2) * sigmoid(X)), t = tanh(softplus(X))", _mish_grad,
               "X", True, FLOATS,
               (Attr("threshold", "float", 20.0, "above it softplus(X) is taken as X"),)),
    Activation("celu", "X if X > 0 else alpha * (exp(X / alpha) - 1)", _celu,
               "dOut if X > 0 else dOut * exp(X / alpha)", _celu_grad, "X", True, FLOATS,
               (Attr("alpha", "float", 1.0, "the scale of the negative part"),)),
    Activation("logit", "log(z / (1 - z)), z = X clipped to [eps, 1 - eps] when eps > 0",
               _logit, "dOut / (X (1 - X)) inside [eps, 1 - eps], else 0", _logit_grad,
               "X", False, FLOATS, (Attr("eps", "float", 1e-6, "the clip of X"),)),
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
                lambda: f"axis must be in [{-max(rank, 1)}, {max(rank, 1)}), got {axis}")
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
