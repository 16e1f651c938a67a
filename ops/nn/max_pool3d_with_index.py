"""max_pool3d_with_index (+ _grad): max pooling of NCDHW X that also says where each
maximum was, as max_pool2d_with_index does for 2-D maps.

    Out[n, c, od, oh, ow]  = the max of X over the window (clipped to the volume)
    Mask[n, c, od, oh, ow] = its flat position d * H * W + h * W + w (int32); the first
                             maximum in (d, h, w) order when several are equal
    dX = dOut added at Mask (overlapping windows accumulate)

Windows: start = o * stride - padding, end = start + ksize (clipped); with
`adaptive`, ksize is the output size and window o spans [floor(o n / out),
ceil((o + 1) n / out)); `global_pooling` pools the whole volume; the output size is
(n + 2 p - k) / s + 1, rounded up with ceil_mode.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.limits import check_temporary
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

max_pool3d_with_index = register_op(
    "max_pool3d_with_index",
    inputs=[In("X", "[N, C, D, H, W]")],
    outputs=[Out("Out", "[N, C, od, oh, ow]"), Out("Mask", "int32 [N, C, od, oh, ow]")],
    attrs=[Attr("ksize", "ints", [], "window (adaptive: output) depth, height and width"),
           Attr("strides", "ints", [1, 1, 1], "window steps"),
           Attr("paddings", "ints", [0, 0, 0], "padding of D, H and W"),
           Attr("global_pooling", "bool", False, "pool the whole volume"),
           Attr("adaptive", "bool", False, "ksize is the output size"),
           Attr("ceil_mode", "bool", False, "round the output size up")],
    doc=__doc__,
)


def _geometry(get, dims):
    k, s, p = list(get("ksize")), list(get("strides")), list(get("paddings"))
    if len(p) == 6:  # [front, back, top, bottom, left, right] with equal halves
        p = p[::2]
    if get("global_pooling"):
        return list(dims), [1] * 3, [0] * 3, [1] * 3
    if get("adaptive"):
        return k, s, [0] * 3, k
    out = []
    for n, kk, ss, pp in zip(dims, k, s, p, strict=True):
        span = n + 2 * pp - kk
        out.append((span + ss - 1) // ss + 1 if get("ceil_mode") else span // ss + 1)
    return k, s, p, out


@max_pool3d_with_index.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 5, lambda: f"X must be [N, C, D, H, W], got {shape_str(x)}")
    for name in ("ksize", "strides"):
        ctx.enforce(len(ctx.attr(name)) == 3, lambda: f"{name} must hold 3 values, got "
                                              f"{list(ctx.attr(name))}")
    ctx.enforce(len(ctx.attr("paddings")) in (3, 6),
                lambda: f"paddings must hold 3 (or 6) values, got {list(ctx.attr('paddings'))}")
    if any(d < 0 for d in x[2:]):
        out = [-1] * 3 if not ctx.attr("adaptive") else list(ctx.attr("ksize"))
    else:
        out = _geometry(ctx.attr, x[2:])[3]
        ctx.enforce(min(out) > 0, lambda: f"the pooled volume would be {out} for X {shape_str(x)}")
    ctx.set_output("Out", [x[0], x[1]] + out, ctx.input_dtype("X"))
    ctx.set_output("Mask", [x[0], x[1]] + out, np.int32)


def _bins(n, out, k, s, p, adaptive):
    i = np.arange(out)
    if adaptive:
        return (i * n) // out, -((-(i + 1) * n) // out)
    start = i * s - p
    return np.maximum(start, 0), np.minimum(start + k, n)


@max_pool3d_with_index.kernel(dtypes=FLOATS)
def max_pool3d_with_index_kernel(attrs, x):
    n, c = x.shape[:2]
    dims = x.shape[2:]
    k, s, p, out = _geometry(attrs.__getitem__, dims)
    adaptive = attrs["adaptive"] and not attrs["global_pooling"]
    starts, ends = zip(*(_bins(dims[a], out[a], k[a], s[a], p[a], adaptive) for a in range(3)),
                       strict=True)
    # Every window as a masked [kd, kh, kw] block of candidate positions, as the 2-D op
    # does: one gather and one argmax instead of a Python loop per window.
    span = [max(int((e - b).max()), 1) for b, e in zip(starts, ends, strict=True)]
    axes = [b[:, None] + np.arange(w) for b, w in zip(starts, span, strict=True)]  # [o, k]
    inside = [a < e[:, None] for a, e in zip(axes, ends, strict=True)]
    clipped = [np.minimum(a, d - 1) for a, d in zip(axes, dims, strict=True)]
    check_temporary("the pooling windows' candidates",
                    (n, c, *out, int(np.prod(span))), x.dtype)
    # [od, oh, ow, kd, kh, kw] flat positions d * H * W + h * W + w, and which are inside
    flat = (clipped[0][:, None, None, :, None, None] * (dims[1] * dims[2])
            + clipped[1][None, :, None, None, :, None] * dims[2]
            + clipped[2][None, None, :, None, None, :]).reshape(*out, -1)
    valid = (inside[0][:, None, None, :, None, None] & inside[1][None, :, None, None, :, None]
             & inside[2][None, None, :, None, None, :]).reshape(*out, -1)
    values = np.where(valid, x.reshape(n, c, -1)[:, :, flat], -np.inf)
    best = values.argmax(axis=-1)[..., None]  # the first maximum in (d, h, w) order
    result = np.take_along_axis(values, best, axis=-1)[..., 0].astype(x.dtype)
    mask = np.take_along_axis(np.broadcast_to(flat, values.shape), best, axis=-1)[..., 0]
    return result, mask.astype(np.int32)


@max_pool3d_with_index.grad_maker
def _(g):
    return [g.grad_op("max_pool3d_with_index_grad",
                      inputs={"X": g.input("X"), "Mask": g.output("Mask"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a.name: g.attr(a.name) for a in max_pool3d_with_index.attrs})]


max_pool3d_with_index_grad = register_op(
    "max_pool3d_with_index_grad",
    inputs=[In("X", no_need_buffer=True), In("Mask"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=list(max_pool3d_with_index.attrs),
    key_inputs=["Out@GRAD"],
    doc="dX = dOut added at Mask (overlapping windows accumulate).",
)


@max_pool3d_with_index_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@max_pool3d_with_index_grad.kernel(dtypes=FLOATS)
def max_pool3d_with_index_grad_kernel(attrs, x, mask, dout):
    n, c = x.shape[:2]
    dx = np.zeros((n * c, int(np.prod(x.shape[2:]))), dout.dtype)
    rows = np.repeat(np.arange(n * c), mask[0, 0].size)
    np.add.at(dx, (rows, mask.reshape(-1)), dout.reshape(-1))
    return dx.reshape(x.shape)
