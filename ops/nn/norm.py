"""Normalizations by a statistic of the input or a learned scale (+ grads), NCHW unless
said otherwise:

    norm             Norm = sqrt(sum(X^2, axis) + epsilon), Out = X / Norm (l2_normalize)
    lrn              Out = X / (k + alpha sum_{c' near c} X[c']^2)^beta, n channels wide
                     (channels on the last axis with data_format NHWC)
    affine_channel   Out = X * Scale[c] + Bias[c] (c: axis 1 for NCHW, the last for NHWC)
    spectral_norm    Out = W / sigma, sigma = u^T W v after power_iters power iterations
                     (W viewed as [dim size, rest]); U and V are read, not updated; dW treats
                     u, v as constants: (dOut - <dOut, W> / sigma u v^T) / sigma

batch_norm, layer_norm and group_norm / instance_norm have their own files.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple

# -- norm (l2_normalize) ---------------------------------------------------------------------

def _infer_norm(ctx):
    shape = list(ctx.input_shape("X"))
    axis = ctx.attr("axis")
    ctx.enforce(-len(shape) <= axis < len(shape), lambda: f"axis {axis} is out of range for rank "
                f"{len(shape)}")
    same_as_input(ctx)
    shape[axis] = 1
    ctx.set_output("Norm", shape, ctx.input_dtype("X"))


def _norm(attrs, x):
    norm = np.sqrt(np.sum(x * x, axis=attrs["axis"], keepdims=True) + attrs["epsilon"])
    return x / norm, norm


def _norm_grad(attrs, x, norm, dout):
    out = x / norm
    return (dout - out * np.sum(dout * out, axis=attrs["axis"], keepdims=True)) / norm


register_simple(
    "norm", [In("X")], [Out("Out", "X / Norm"), Out("Norm", "the L2 norms, axis kept")],
    [Attr("axis", "int", 1, "the axis normalized"),
     Attr("epsilon", "float", 1e-10, "added under the square root")],
    _infer_norm, _norm, backward=_norm_grad, wrt=["X"], keep=["Norm"], doc=__doc__)


# -- lrn -------------------------------------------------------------------------------------

def _window_sum(a, n):
    """Sum over channels c - (n-1)/2 .. c + (n-1)/2 (axis 1), zero-padded."""
    pre = (n - 1) // 2
    padded = np.pad(a, [(0, 0), (pre, n - 1 - pre)] + [(0, 0)] * (a.ndim - 2))
    csum = np.concatenate([np.zeros_like(padded[:, :1]), np.cumsum(padded, axis=1)], axis=1)
    return csum[:, n:] - csum[:, :-n]


def _channels_last(attrs) -> bool:
    """data_format "NHWC": the window runs along the last axis (Paddle transposes to NCHW,
    normalizes and transposes Out and MidOut back); any other value means NCHW."""
    return attrs["data_format"] == "NHWC"


def _lrn(attrs, x):
    if _channels_last(attrs):
        out, mid = _lrn_nchw(attrs, np.moveaxis(x, -1, 1))
        return _back_to_last(out), _back_to_last(mid)
    return _lrn_nchw(attrs, x)


def _lrn_nchw(attrs, x):
    mid = attrs["k"] + attrs["alpha"] * _window_sum(x * x, attrs["n"])
    return x * np.power(mid, -attrs["beta"]), mid


def _lrn_grad(attrs, x, mid, dout):
    if _channels_last(attrs):
        dx = _lrn_grad_nchw(attrs, *(np.moveaxis(a, -1, 1) for a in (x, mid, dout)))
        return _back_to_last(dx)
    return _lrn_grad_nchw(attrs, x, mid, dout)


def _back_to_last(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def _lrn_grad_nchw(attrs, x, mid, dout):
    n, beta = attrs["n"], attrs["beta"]
    out = x * np.power(mid, -beta)
    # channel c's mid sums the window around c, so x_i feeds the mids of the windows holding i:
    # the same symmetric-by-reflection window, taken with the other offset.
    pre = (n - 1) // 2
    ratio = dout * out / mid
    padded = np.pad(ratio, [(0, 0), (n - 1 - pre, pre)] + [(0, 0)] * (x.ndim - 2))
    csum = np.concatenate([np.zeros_like(padded[:, :1]), np.cumsum(padded, axis=1)], axis=1)
    back = csum[:, n:] - csum[:, :-n]
    return dout * np.power(mid, -beta) - 2 * attrs["alpha"] * beta * x * back


register_simple(
    "lrn", [In("X", "[N, C, H, W] ([N, H, W, C] with data_format NHWC)")],
    [Out("Out", "X's shape"), Out("MidOut", "k + alpha sum")],
    [Attr("n", "int", 5, "channels per window"), Attr("k", "float", 2.0, "the offset"),
     Attr("alpha", "float", 1e-4, "the scale"), Attr("beta", "float", 0.75, "the exponent"),
     Attr("data_format", "string", "AnyLayout",
          "NHWC: channels are the last axis; NCHW or AnyLayout: axis 1")],
    lambda ctx: (ctx.enforce_positive("n"), same_as_input(ctx),
                 same_as_input(ctx, "X", "MidOut")), _lrn,
    backward=_lrn_grad, wrt=["X"], keep=["MidOut"], doc=__doc__)


def _channel_view(x, layout):
    """The shape that broadcasts a [C] vector along the channel axis."""
    shape = [1] * x.ndim
    shape[1 if layout == "NCHW" else -1] = -1
    return shape


def _sum_but_channel(a, layout):
    axis = 1 if layout == "NCHW" else a.ndim - 1
    return a.sum(axis=tuple(i for i in range(a.ndim) if i != axis))


# -- affine_channel --------------------------------------------------------------------------

def _affine(attrs, x, scale, bias):
    view = _channel_view(x, attrs["data_layout"])
    return x * scale.reshape(view) + bias.reshape(view)


def _affine_grad(attrs, x, scale, bias, dout):
    layout = attrs["data_layout"]
    return (dout * scale.reshape(_channel_view(x, layout)), _sum_but_channel(dout * x, layout),
            _sum_but_channel(dout, layout))


register_simple(
    "affine_channel", [In("X"), In("Scale", "[C]"), In("Bias", "[C]")],
    [Out("Out", "X's shape")], [Attr("data_layout", "string", "NCHW", "NCHW or NHWC")],
    same_as_input, _affine, backward=_affine_grad, wrt=["X", "Scale", "Bias"], doc=__doc__)


# -- spectral_norm ---------------------------------------------------------------------------

def _as_matrix(w, dim):
    moved = np.moveaxis(w, dim, 0)
    return moved.reshape(moved.shape[0], -1), moved.shape


def _power(mat, u, v, iters, eps):
    u, v = u.astype(np.float64), v.astype(np.float64)
    for _ in range(iters):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = mat @ v
        u = u / (np.linalg.norm(u) + eps)
    return u, v, float(u @ mat @ v)


def _spectral(attrs, w, u, v):
    mat, moved = _as_matrix(w.astype(np.float64), attrs["dim"])
    u, v, sigma = _power(mat, u.reshape(-1), v.reshape(-1), attrs["power_iters"], attrs["eps"])
    out = (mat / sigma).reshape(moved)
    return np.moveaxis(out, 0, attrs["dim"]).astype(w.dtype)


def _spectral_grad(attrs, w, u, v, dout):
    mat, moved = _as_matrix(w.astype(np.float64), attrs["dim"])
    dmat, _ = _as_matrix(dout.astype(np.float64), attrs["dim"])
    u, v, sigma = _power(mat, u.reshape(-1), v.reshape(-1), attrs["power_iters"], attrs["eps"])
    dw = (dmat - np.sum(dmat * mat) / sigma * np.outer(u, v)) / sigma
    return np.moveaxis(dw.reshape(moved), 0, attrs["dim"]).astype(w.dtype)


def _infer_spectral(ctx):
    w, u, v = ctx.input_shape("Weight"), ctx.input_shape("U"), ctx.input_shape("V")
    dim = ctx.attr("dim")
    ctx.enforce(0 <= dim < len(w), lambda: f"dim {dim} is out of range for Weight {list(w)}")
    ctx.enforce(ctx.attr("power_iters") >= 0, "power_iters must be >= 0")
    h = w[dim]
    rest = int(np.prod([d for i, d in enumerate(w) if i != dim])) if all(d >= 0 for d in w) \
        else -1
    ctx.enforce(u[0] < 0 or h < 0 or u[0] == h, lambda: f"U must be [{h}], got {list(u)}")
    ctx.enforce(v[0] < 0 or rest < 0 or v[0] == rest, lambda: f"V must be [{rest}], got {list(v)}")
    ctx.set_output("Out", w, ctx.input_dtype("Weight"))


register_simple(
    "spectral_norm", [In("Weight"), In("U", "[h] left vector"), In("V", "[w] right vector")],
    [Out("Out", "Weight / sigma")],
    [Attr("dim", "int", 0, "the dim that becomes the rows"),
     Attr("power_iters", "int", 1, "power iterations"),
     Attr("eps", "float", 1e-12, "added to norms")],
    _infer_spectral, _spectral, backward=_spectral_grad, wrt=["Weight"], doc=__doc__)
