"""expand and expand_as (+ grads): tile X expand_times[i] times along each dim i (Paddle's
expand op), or to target_tensor's shape (expand_as).

    Out = np.tile(X, expand_times),   Out.shape[i] = X.shape[i] * expand_times[i]
    dX = dOut summed over the copies: dOut viewed as [t_0, x_0, t_1, x_1, ...], summed
         over the t axes

Out keeps X's LoD when its first dim is unchanged (expand_times[0] == 1), as in Paddle.
ExpandTimes (an int tensor) or expand_times_tensor (one [1] int tensor per dim) give
expand_times at run time instead of the attribute (ops/tensor_attrs.py); the tiled
size is then checked against the memory budget.
expand_as: Out = X tiled to target_tensor's shape (each dim a multiple of X's); dX sums the
tiles.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_allocation
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import dims_known, shape_str
from paddle_ir.ops.registry import BOOL, FLOATS, NUMERIC, Attr, In, Out, register_op
from paddle_ir.ops.simple_op import register_simple
from paddle_ir.ops.tensor_attrs import (
    TensorAttr,
    overridden,
    tensor_attr_inputs,
    with_tensor_attrs,
)

# The inputs that override attributes at run time.
TENSOR_ATTRS = (TensorAttr("expand_times", "ints", whole="ExpandTimes",
                           parts="expand_times_tensor"),)

expand = register_op(
    "expand",
    inputs=[In("X", "a tensor of rank 1 to 6")] + tensor_attr_inputs(TENSOR_ATTRS),
    outputs=[Out("Out", "X tiled")],
    attrs=[Attr("expand_times", "ints", [], "copies along each dim, one entry per dim of X")],
    doc=__doc__,
)


def _times(ctx) -> list[int]:
    x, times = ctx.input_shape("X"), list(ctx.attr("expand_times"))
    ctx.enforce(len(times) == len(x), lambda:
                f"expand_times must have one entry per dim of X {shape_str(x)}, got {times}")
    ctx.enforce(all(t >= 1 for t in times), lambda: f"expand_times must be >= 1, got {times}")
    return times


@expand.infer_shape
def _(ctx):
    if overridden(ctx, TENSOR_ATTRS):  # the copies are known at run time only
        x = ctx.input_shape("X")
        if ctx.has_input("expand_times_tensor"):
            ctx.enforce(ctx.input_count("expand_times_tensor") == len(x),
                        lambda: f"expand_times_tensor must hold one tensor per dim of X "
                        f"{shape_str(x)}, got {ctx.input_count('expand_times_tensor')}")
        ctx.set_output("Out", [-1] * len(x), ctx.input_dtype("X"))
        ctx.share_lod("X", "Out")
        return
    times = _times(ctx)
    x = ctx.input_shape("X")
    ctx.set_output("Out", [d * t if d >= 0 else -1 for d, t in zip(x, times, strict=True)],
                   ctx.input_dtype("X"))
    if times and times[0] == 1:
        ctx.share_lod("X", "Out")


def expand_kernel(attrs, x: LoDTensor):
    times = attrs["expand_times"]
    if len(times) != x.numpy().ndim or min(times, default=1) < 1:
        raise KernelError(f"expand: expand_times {times} must hold one count >= 1 per dim of "
                          f"X {list(x.shape)}")
    out_shape = [d * t for d, t in zip(x.shape, times, strict=True)]
    check_allocation("expand", out_shape, x.dtype, "its expand_times")
    out = np.tile(x.numpy(), times)
    return LoDTensor.unchecked(out, x.offsets if times and times[0] == 1 else ())


expand.kernel(dtypes=NUMERIC + BOOL, lod=True)(with_tensor_attrs("expand", TENSOR_ATTRS, 1,
                                                          expand_kernel))


@expand.grad_maker
def _(g):
    inputs = {"X": g.input("X"), "Out@GRAD": g.output_grad("Out")}
    for slot in TENSOR_ATTRS[0].slots():
        if g.input(slot):
            inputs[slot] = g.input(slot)
    return [g.grad_op("expand_grad", inputs=inputs, outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"expand_times": g.attr("expand_times")})]


expand_grad = register_op(
    "expand_grad",
    inputs=[In("X", no_need_buffer=True)] + tensor_attr_inputs(TENSOR_ATTRS) + [In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("expand_times", "ints", [])],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut summed over the tiles.",
)


@expand_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


def expand_grad_kernel(attrs, x: LoDTensor, dout: LoDTensor):
    times = attrs["expand_times"]
    shape = x.shape
    split = [v for t, d in zip(times, shape, strict=True) for v in (t, d)]
    dx = dout.numpy().reshape(split).sum(axis=tuple(range(0, 2 * len(shape), 2)))
    return LoDTensor.unchecked(dx.astype(dout.dtype, copy=False), x.offsets)


expand_grad.kernel(dtypes=NUMERIC, lod=True)(with_tensor_attrs("expand_grad", TENSOR_ATTRS, 1,
                                                               expand_grad_kernel))


# -- expand_as -------------------------------------------------------------------------------

def _infer_expand_as(ctx):
    x, t = ctx.input_shape("X"), ctx.input_shape("target_tensor")
    ctx.enforce(len(x) == len(t), lambda: f"X and target_tensor must have one rank, got {list(x)} "
                f"and {list(t)}")
    ctx.enforce(all(not dims_known(a, b) or (a > 0 and b % a == 0) for a, b in zip(x, t,
                                                                             strict=True)), lambda:
                f"each target dim must be a multiple of X's, got X {list(x)}, target {list(t)}")
    ctx.set_output("Out", t, ctx.input_dtype("X"))


def _expand_as_grad(attrs, x, target, dout):
    reps = [b // a for a, b in zip(x.shape, dout.shape, strict=True)]
    split = dout.reshape([v for r, d in zip(reps, x.shape, strict=True) for v in (r, d)])
    return split.sum(axis=tuple(range(0, split.ndim, 2))).astype(dout.dtype)


register_simple(
    "expand_as", [In("X"), In("target_tensor", "gives the shape")],
    [Out("Out", "target_tensor's shape")], [], _infer_expand_as,
    lambda attrs, x, t: np.tile(x, [b // a for a, b in zip(x.shape, t.shape, strict=True)]),
    backward=_expand_as_grad, wrt=["X"], dtypes=FLOATS, doc=__doc__)
