"""The activations with a learned or grouped shape (+ grads), NCHW:

    prelu            Out = X if X > 0 else Alpha X (mode all, channel or element)
    maxout           Out[c] = max of X[c g : (c + 1) g]
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple

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
                lambda: f"mode must be all, channel or element, got {mode!r}")
    n = int(np.prod(a)) if all(d >= 0 for d in a) else -1
    want = {"all": 1, "channel": x[1] if len(x) > 1 else -1,
            "element": int(np.prod(x[1:])) if all(d >= 0 for d in x[1:]) else -1}[mode]
    ctx.enforce(n < 0 or want < 0 or n == want, lambda:
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


# -- maxout ----------------------------------------------------------------------------------

def _infer_maxout(ctx):
    shape = list(ctx.input_shape("X"))
    g, axis = ctx.attr("groups"), ctx.attr("axis") % 4
    ctx.enforce(len(shape) == 4, lambda: f"X must be 4-D, got {shape}")
    ctx.enforce(g >= 1 and (shape[axis] < 0 or shape[axis] % g == 0),
                lambda: f"the channel dim {shape[axis]} must be a multiple of groups {g}")
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
