"""group_norm and instance_norm (+ grads), NCHW:

    group_norm     Y = (X - mean_g) / sqrt(var_g + eps) * Scale + Bias over channel groups;
                   Mean and Variance are [N, groups]
    instance_norm  group_norm with one channel per group (SavedMean, SavedVariance [N, C])
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple

# -- group_norm / instance_norm --------------------------------------------------------------

def _gn_stats(x, groups, eps):
    n = x.shape[0]
    g = x.reshape(n, groups, -1)
    mean = g.mean(axis=2)
    var = g.var(axis=2)
    xhat = (g - mean[..., None]) / np.sqrt(var[..., None] + eps)
    return xhat.reshape(x.shape), mean, var


def _gn(x, scale, bias, groups, eps):
    xhat, mean, var = _gn_stats(x, groups, eps)
    view = [1, -1] + [1] * (x.ndim - 2)
    y = xhat
    if scale is not None:
        y = y * scale.reshape(view)
    if bias is not None:
        y = y + bias.reshape(view)
    return y, mean, var


def _gn_grad(x, scale, bias, dy, groups, eps):
    n = x.shape[0]
    view = [1, -1] + [1] * (x.ndim - 2)
    xhat, _, var = _gn_stats(x, groups, eps)
    dxhat = dy * scale.reshape(view) if scale is not None else dy
    gx, gd = xhat.reshape(n, groups, -1), dxhat.reshape(n, groups, -1)
    m = gx.shape[2]
    inv = 1 / np.sqrt(var[..., None] + eps)
    dx = inv / m * (m * gd - gd.sum(2, keepdims=True) - gx * (gd * gx).sum(2, keepdims=True))
    axes = tuple(i for i in range(x.ndim) if i != 1)
    dscale = None if scale is None else (dy * xhat).sum(axis=axes)
    dbias = None if bias is None else dy.sum(axis=axes)
    return dx.reshape(x.shape), dscale, dbias


def _infer_gn(ctx, groups_of, y="Y", mean="Mean", var="Variance"):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) >= 2, lambda: f"X must be [N, C, ...], got {list(x)}")
    groups = groups_of(ctx, x)
    ctx.enforce(groups >= 1 and (x[1] < 0 or x[1] % groups == 0),
                lambda: f"channels {x[1]} must be a multiple of groups {groups}")
    ctx.set_output(y, x, ctx.input_dtype("X"))
    ctx.set_output(mean, (x[0], groups if groups else -1), ctx.input_dtype("X"))
    ctx.set_output(var, (x[0], groups if groups else -1), ctx.input_dtype("X"))


register_simple(
    "group_norm", [In("X", "[N, C, ...]"), In("Scale", "[C]", dispensable=True),
                   In("Bias", "[C]", dispensable=True)],
    [Out("Y", "X's shape"), Out("Mean", "[N, groups]"), Out("Variance", "[N, groups]")],
    [Attr("groups", "int", 1, "channel groups"), Attr("epsilon", "float", 1e-5, "variance eps"),
     Attr("data_layout", "string", "NCHW", "NCHW only")],
    lambda ctx: _infer_gn(ctx, lambda c, x: c.attr("groups")),
    lambda attrs, x, s, b: _gn(x, s, b, attrs["groups"], attrs["epsilon"]),
    backward=lambda attrs, x, s, b, dy: _gn_grad(x, s, b, dy, attrs["groups"],
                                                 attrs["epsilon"]),
    wrt=["X", "Scale", "Bias"], out_slot="Y", doc=__doc__)


def _instance_groups(ctx, x):
    ctx.enforce(x[1] >= 0, lambda: f"instance_norm needs a known channel dim, got {list(x)}")
    return x[1]


register_simple(
    "instance_norm", [In("X", "[N, C, ...]"), In("Scale", "[C]", dispensable=True),
                      In("Bias", "[C]", dispensable=True)],
    [Out("Y", "X's shape"), Out("SavedMean", "[N, C]"), Out("SavedVariance", "[N, C]")],
    [Attr("epsilon", "float", 1e-5, "variance eps")],
    lambda ctx: _infer_gn(ctx, _instance_groups, "Y", "SavedMean", "SavedVariance"),
    lambda attrs, x, s, b: _gn(x, s, b, x.shape[1], attrs["epsilon"]),
    backward=lambda attrs, x, s, b, dy: _gn_grad(x, s, b, dy, x.shape[1], attrs["epsilon"]),
    wrt=["X", "Scale", "Bias"], out_slot="Y", doc=__doc__)
