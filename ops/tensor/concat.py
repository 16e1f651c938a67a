"""concat (+ concat_grad): Out = the inputs X[0], X[1], ... joined along `axis`.

All inputs have one rank and one dtype and agree on every dim but `axis`
(negative counts from the end). An `AxisTensor` input (an int tensor of one
element) overrides `axis`; its value is known at run time only, so with it
every dim of Out is -1 at build time. Out's `axis` dim is their sum (-1 when one is
unknown). Out has X[0]'s LoD when axis is not 0; joining along axis 0 adds
rows no single input's LoD describes, so Out then has none.

concat_grad splits dOut at the inputs' sizes along `axis`: dX[i] is dOut's
slice for X[i].
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.tensor.split_stack import axis_of

_ATTRS = [Attr("axis", "int", 0, "the axis to join along; negative counts from the end")]

concat = register_op(
    "concat",
    inputs=[In("X", "the tensors to join, in order", duplicable=True),
            In("AxisTensor", "an int tensor [1]; overrides axis", dispensable=True)],
    outputs=[Out("Out")],
    attrs=_ATTRS,
    doc=__doc__,
)


def _axis(ctx, shapes) -> int:
    rank = len(shapes[0])
    axis = ctx.attr("axis")
    ctx.enforce(-rank <= axis < rank,
                f"axis must be in [-{rank}, {rank}) for inputs of rank {rank}, got {axis}")
    return axis % rank


@concat.infer_shape
def _(ctx):
    shapes = ctx.input_shapes("X")
    ctx.enforce(len(shapes) > 0, "X must hold at least one tensor")
    names = ctx.input_names("X")
    rank = len(shapes[0])
    for name, shape in zip(names, shapes, strict=True):
        ctx.enforce(len(shape) == rank,
                    f"all inputs must have the same rank, but {names[0]} has shape "
                    f"{shape_str(shapes[0])} (rank {rank}) and {name} has shape "
                    f"{shape_str(shape)} (rank {len(shape)})")
    if ctx.has_input("AxisTensor"):
        ctx.set_output("Out", [-1] * rank, ctx.input_dtype("X"))
        return
    axis = _axis(ctx, shapes)
    out = list(shapes[0])
    for name, shape in zip(names[1:], shapes[1:], strict=True):
        for i, (a, b) in enumerate(zip(out, shape, strict=True)):
            if i == axis:
                continue
            ctx.enforce(dims_match(a, b),
                        f"inputs must agree on every dim but axis {axis}, but {names[0]} has "
                        f"shape {shape_str(shapes[0])} and {name} has {shape_str(shape)}")
            out[i] = max(a, b)
    sizes = [s[axis] for s in shapes]
    out[axis] = -1 if any(d < 0 for d in sizes) else sum(sizes)
    dtypes = [ctx.input_dtype("X", i) for i in range(len(names))]
    for name, dt in zip(names, dtypes, strict=True):
        ctx.enforce(dt == dtypes[0], f"all inputs must have one dtype, but {names[0]} is "
                                     f"{dtypes[0]} and {name} is {dt}", hint="insert a cast op")
    ctx.set_output("Out", out, dtypes[0])
    if axis != 0:
        ctx.share_lod("X", "Out")


@concat.kernel(dtypes=ALL_DTYPES)
def concat_dense(attrs, xs, axis_tensor):
    return np.concatenate(xs, axis=_run_axis(attrs, axis_tensor, xs[0].ndim))


def _run_axis(attrs, axis_tensor, rank: int) -> int:
    if axis_tensor is None:
        return attrs["axis"]
    return axis_of("concat", axis_tensor, rank)


@concat.grad_maker
def _(g):
    return [g.grad_op("concat_grad",
                      inputs={"X": g.input("X"), "AxisTensor": g.input("AxisTensor"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"axis": g.attr("axis")})]


concat_grad = register_op(
    "concat_grad",
    inputs=[In("X", duplicable=True), In("AxisTensor", dispensable=True), In("Out@GRAD")],
    outputs=[Out("X@GRAD", "one gradient per input", duplicable=True, dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="dX[i] = the slice of dOut along axis that X[i] filled.",
)


@concat_grad.infer_shape
def _(ctx):
    for i in range(ctx.input_count("X")):
        ctx.set_output("X@GRAD", ctx.input_shape("X", i), ctx.input_dtype("X", i), i=i)
        ctx.share_lod("X", "X@GRAD", i, i)


@concat_grad.kernel(dtypes=FLOATS)
def concat_grad_dense(attrs, xs, axis_tensor, dout):
    axis = _run_axis(attrs, axis_tensor, dout.ndim) % dout.ndim
    bounds = np.cumsum([x.shape[axis] for x in xs[:-1]])
    return np.split(dout, bounds, axis=axis)
