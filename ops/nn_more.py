"""Normalization and per-channel layers' ops (+ grads), in NCHW unless said otherwise:

    affine_channel   Out = X * Scale[c] + Bias[c] (c: axis 1 for NCHW, the last for NHWC)
    add_position_encoding  Out = alpha X + beta PE, PE[t, k] = sin(t / 10000^(k / (h - 1))),
                     PE[t, h + k] = cos(same), h = D / 2; t restarts per sequence with a LoD
    bilinear_tensor_product  Out[b, i] = X[b] W[i] Y[b]^T + Bias[i]
    cvm              use_cvm: Y = X with Y0 = log(X0 + 1), Y1 = log(X1 + 1) - Y0; else X[:, 2:]
    fsp_matrix       Out[n] = X[n] Y[n]^T / (H W), X and Y flattened to [C, H W]
    norm             Norm = sqrt(sum(X^2, axis) + epsilon), Out = X / Norm
    lrn              Out = X / (k + alpha sum_{c' near c} X[c']^2)^beta, n channels wide
    maxout           Out[c] = max of X[c g : (c + 1) g]
    prelu            Out = X if X > 0 else Alpha X (mode all, channel or element)

temporal_shift and row_conv live in ops/nn/temporal.py, group_norm and instance_norm in
ops/nn/group_norm.py.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import lengths_of
from paddle_ir.ops.simple_op import register_simple


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


# -- add_position_encoding -------------------------------------------------------------------

def _positions(x: LoDTensor) -> tuple[np.ndarray, tuple]:
    """(time index of each row of x viewed as [rows, D], reshape) for dense [B, T, D] or LoD."""
    arr = x.numpy()
    if x.lod_level:
        offsets = x.offsets[-1]
        t = np.arange(arr.shape[0]) - np.repeat(offsets[:-1], lengths_of(offsets))
        return t, arr.shape
    b, steps = arr.shape[0], arr.shape[1]
    return np.tile(np.arange(steps), b), arr.shape


def _encoding(t: np.ndarray, d: int) -> np.ndarray:
    half = d // 2
    k = np.arange(half)
    denom = np.power(10000.0, k / (half - 1)) if half > 1 else np.full(half, 10000.0)
    angle = t[:, None] / denom[None, :]
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)


def _ape(attrs, x: LoDTensor) -> LoDTensor:
    t, shape = _positions(x)
    arr = x.numpy()
    flat = arr.reshape(t.size, shape[-1])
    out = attrs["alpha"] * flat + attrs["beta"] * _encoding(t, shape[-1])
    return LoDTensor.unchecked(out.reshape(shape).astype(arr.dtype), x.offsets)


def _infer_ape(ctx):
    shape = ctx.input_shape("X")
    ctx.enforce(shape[-1] < 0 or shape[-1] % 2 == 0,
                f"the last dim of X must be even, got {list(shape)}")
    ctx.enforce(len(shape) == 3 or (len(shape) == 2 and ctx.input_lod_level("X") > 0),
                f"X must be [B, T, D], or [rows, D] with a LoD, got {list(shape)}")
    same_as_input(ctx)


register_simple(
    "add_position_encoding", [In("X", "[B, T, D] or a LoDTensor [rows, D]")],
    [Out("Out", "X's shape and LoD")],
    [Attr("alpha", "float", 1.0, "X's weight"), Attr("beta", "float", 1.0, "PE's weight")],
    _infer_ape, _ape,
    backward=lambda attrs, x, dout: LoDTensor.unchecked(
        (attrs["alpha"] * dout.numpy()).astype(dout.dtype), x.offsets),
    wrt=["X"], lod=True, doc=__doc__)


# -- bilinear_tensor_product -----------------------------------------------------------------

def _infer_btp(ctx):
    x, y, w = ctx.input_shape("X"), ctx.input_shape("Y"), ctx.input_shape("Weight")
    ctx.enforce(len(x) == 2 and len(y) == 2 and len(w) == 3,
                f"X [B, M], Y [B, N], Weight [size, M, N] expected, got {list(x)}, {list(y)}, "
                f"{list(w)}")
    ctx.enforce(w[1] < 0 or x[1] < 0 or w[1] == x[1], f"Weight.shape[1] {w[1]} != M {x[1]}")
    ctx.enforce(w[2] < 0 or y[1] < 0 or w[2] == y[1], f"Weight.shape[2] {w[2]} != N {y[1]}")
    ctx.set_output("Out", (x[0], w[0]), ctx.input_dtype("X"))


def _btp(attrs, x, y, w, bias):
    out = np.einsum("bm,imn,bn->bi", x, w, y)
    return out + bias.reshape(1, -1) if bias is not None else out


def _btp_grad(attrs, x, y, w, bias, dout):
    dx = np.einsum("bi,imn,bn->bm", dout, w, y)
    dy = np.einsum("bi,imn,bm->bn", dout, w, x)
    dw = np.einsum("bi,bm,bn->imn", dout, x, y)
    db = None if bias is None else dout.sum(0).reshape(bias.shape)
    return dx, dy, dw, db


register_simple(
    "bilinear_tensor_product", [In("X", "[B, M]"), In("Y", "[B, N]"),
                                In("Weight", "[size, M, N]"),
                                In("Bias", "[1, size]", dispensable=True)],
    [Out("Out", "[B, size]")], [], _infer_btp, _btp, backward=_btp_grad,
    wrt=["X", "Y", "Weight", "Bias"], doc=__doc__)


# -- cvm -------------------------------------------------------------------------------------

def _infer_cvm(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 2, f"X must be [N, D], got {list(x)}")
    width = x[1] if ctx.attr("use_cvm") or x[1] < 0 else x[1] - 2
    ctx.set_output("Y", (x[0], width), ctx.input_dtype("X"))
    ctx.share_lod("X", "Y")


def _cvm(attrs, x, cvm):
    if not attrs["use_cvm"]:
        return x[:, 2:].copy()
    y = x.copy()
    y[:, 0] = np.log(x[:, 0] + 1)
    y[:, 1] = np.log(x[:, 1] + 1) - y[:, 0]
    return y


def _cvm_grad(attrs, x, cvm, dy):
    dx = np.zeros(x.shape, dtype=dy.dtype)
    dx[:, 2:] = dy[:, 2:] if attrs["use_cvm"] else dy
    dx[:, :2] = cvm[:, :2]  # Paddle's rule: the show/click columns take the CVM values
    return dx


register_simple(
    "cvm", [In("X", "[N, D], columns 0-1 show and click"), In("CVM", "[N, 2]")],
    [Out("Y", "[N, D] or [N, D - 2]")],
    [Attr("use_cvm", "bool", True, "transform the two columns (else drop them)")],
    _infer_cvm, _cvm, backward=_cvm_grad, wrt=["X"], out_slot="Y", doc=__doc__)


# -- fsp_matrix ------------------------------------------------------------------------------

def _infer_fsp(ctx):
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    ctx.enforce(len(x) == 4 and len(y) == 4 and list(x[2:]) == list(y[2:]),
                f"X and Y must be [N, C, H, W] with the same H and W, got {list(x)}, {list(y)}")
    ctx.set_output("Out", (x[0], x[1], y[1]), ctx.input_dtype("X"))


def _flat(a):
    return a.reshape(a.shape[0], a.shape[1], -1)


def _fsp(attrs, x, y):
    hw = x.shape[2] * x.shape[3]
    return np.matmul(_flat(x), _flat(y).transpose(0, 2, 1)) / hw


def _fsp_grad(attrs, x, y, dout):
    hw = x.shape[2] * x.shape[3]
    dx = np.matmul(dout, _flat(y)) / hw
    dy = np.matmul(dout.transpose(0, 2, 1), _flat(x)) / hw
    return dx.reshape(x.shape), dy.reshape(y.shape)


register_simple(
    "fsp_matrix", [In("X", "[N, C1, H, W]"), In("Y", "[N, C2, H, W]")],
    [Out("Out", "[N, C1, C2]")], [], _infer_fsp, _fsp, backward=_fsp_grad, wrt=["X", "Y"],
    doc=__doc__)


# -- norm (l2_normalize) ---------------------------------------------------------------------

def _infer_norm(ctx):
    shape = list(ctx.input_shape("X"))
    axis = ctx.attr("axis")
    ctx.enforce(-len(shape) <= axis < len(shape), f"axis {axis} is out of range for rank "
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


def _lrn(attrs, x):
    mid = attrs["k"] + attrs["alpha"] * _window_sum(x * x, attrs["n"])
    return x * np.power(mid, -attrs["beta"]), mid


def _lrn_grad(attrs, x, mid, dout):
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
    "lrn", [In("X", "[N, C, H, W]")], [Out("Out", "X's shape"), Out("MidOut", "k + alpha sum")],
    [Attr("n", "int", 5, "channels per window"), Attr("k", "float", 2.0, "the offset"),
     Attr("alpha", "float", 1e-4, "the scale"), Attr("beta", "float", 0.75, "the exponent"),
     Attr("data_format", "string", "AnyLayout", "accepted for Paddle's sake")],
    lambda ctx: (ctx.enforce_positive("n"), same_as_input(ctx),
                 same_as_input(ctx, "X", "MidOut")), _lrn,
    backward=_lrn_grad, wrt=["X"], keep=["MidOut"], doc=__doc__)


# -- maxout ----------------------------------------------------------------------------------

def _infer_maxout(ctx):
    shape = list(ctx.input_shape("X"))
    g, axis = ctx.attr("groups"), ctx.attr("axis") % 4
    ctx.enforce(len(shape) == 4, f"X must be 4-D, got {shape}")
    ctx.enforce(g >= 1 and (shape[axis] < 0 or shape[axis] % g == 0),
                f"the channel dim {shape[axis]} must be a multiple of groups {g}")
    shape[axis] = shape[axis] // g if shape[axis] >= 0 else -1
    ctx.set_output("Out", shape, ctx.input_dtype("X"))


def _grouped(x, attrs):
    axis, g = attrs["axis"] % 4, attrs["groups"]
    shape = list(x.shape)
    return x.reshape(shape[:axis] + [shape[axis] // g, g] + shape[axis + 1:]), axis + 1


def _maxout(attrs, x):
    grouped, axis = _grouped(x, attrs)
    return grouped.max(axis=axis)


def _maxout_grad(attrs, x, dout):
    grouped, axis = _grouped(x, attrs)
    first = np.expand_dims(grouped.argmax(axis=axis), axis)  # the first maximum, as Paddle
    dx = np.zeros_like(grouped, dtype=dout.dtype)
    np.put_along_axis(dx, first, np.expand_dims(dout, axis), axis)
    return dx.reshape(x.shape)


register_simple(
    "maxout", [In("X", "4-D")], [Out("Out", "the channel dim divided by groups")],
    [Attr("groups", "int", 1, "channels per max"), Attr("axis", "int", 1, "1 (NCHW) or -1/3")],
    _infer_maxout, _maxout, backward=_maxout_grad, wrt=["X"], doc=__doc__)


# -- prelu -----------------------------------------------------------------------------------

def _alpha_view(x, alpha, mode):
    if mode == "all":
        return alpha.reshape(())
    if mode == "channel":
        return alpha.reshape([1, -1] + [1] * (x.ndim - 2))
    return alpha.reshape((1,) + x.shape[1:])


def _infer_prelu(ctx):
    mode, x, a = ctx.attr("mode"), ctx.input_shape("X"), ctx.input_shape("Alpha")
    ctx.enforce(mode in ("all", "channel", "element"),
                f"mode must be all, channel or element, got {mode!r}")
    n = int(np.prod(a)) if all(d >= 0 for d in a) else -1
    want = {"all": 1, "channel": x[1] if len(x) > 1 else -1,
            "element": int(np.prod(x[1:])) if all(d >= 0 for d in x[1:]) else -1}[mode]
    ctx.enforce(n < 0 or want < 0 or n == want,
                f"Alpha must hold {want} values for mode {mode!r} and X {list(x)}, got {list(a)}")
    same_as_input(ctx)


def _prelu(attrs, x, alpha):
    return np.where(x > 0, x, _alpha_view(x, alpha, attrs["mode"]) * x).astype(x.dtype)


def _prelu_grad(attrs, x, alpha, dout):
    a = _alpha_view(x, alpha, attrs["mode"])
    dx = np.where(x > 0, dout, a * dout)
    contrib = np.where(x > 0, 0, x * dout)
    mode = attrs["mode"]
    if mode == "all":
        da = contrib.sum()
    elif mode == "channel":
        da = contrib.sum(axis=tuple(i for i in range(x.ndim) if i != 1))
    else:
        da = contrib.sum(axis=0)
    return dx, np.asarray(da).reshape(alpha.shape)


register_simple(
    "prelu", [In("X"), In("Alpha", "the slopes")], [Out("Out", "X's shape")],
    [Attr("mode", "string", "all", "all, channel or element")], _infer_prelu, _prelu,
    backward=_prelu_grad, wrt=["X", "Alpha"], doc=__doc__)
