"""concat (+ concat_grad): Out = the inputs X[0], X[1], ... joined along `axis`.

All inputs have one dtype and agree on every dim but `axis` (negative counts
from the end). Out has X[0]'s rank. A later input may have a higher rank when
every dim past X[0]'s rank is 1: Paddle's kernel joins the inputs as rows of
their flattened trailing dims and checks only X[0]'s dims, so `concat([x [N, 100],
y [N, 1, 1, 1]], axis=1)` is [N, 101] there (Fluid 1.x GANs condition on labels
so); such an input is taken as its first rank(X[0]) dims. Any other rank
mismatch is refused, as Paddle has no meaning for it. An `AxisTensor` input (an int tensor of one
element) overrides `axis`; its value is known at run time only, so with it
every dim of Out is -1 at build time. Out's `axis` dim is their sum (-1 when one is
unknown).

LoD, as Paddle's concat keeps it: Out has X[0]'s lod_level at build time and
X[0]'s LoD at run time; joined along axis 0, when X[0] has a LoD, each later
input's sequences are appended level by level (three inputs with LoD
[[20, 80]] give [[20, 80, 20, 80, 20, 80]]). Every input then needs a LoD of
X[0]'s depth: Paddle refuses other depths, and an input without one would
leave rows that X[0]'s LoD does not cover (Paddle keeps X[0]'s LoD as it is),
so both are refused here.

concat_grad splits dOut at the inputs' sizes along `axis`: dX[i] is dOut's
slice for X[i].
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
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
                lambda: f"axis must be in [-{rank}, {rank}) for inputs of rank {rank}, got {axis}")
    return axis % rank


@concat.infer_shape
def _(ctx):
    shapes = ctx.input_shapes("X")
    ctx.enforce(len(shapes) > 0, "X must hold at least one tensor")
    names = ctx.input_names("X")
    rank = len(shapes[0])
    for name, shape in zip(names, shapes, strict=True):
        ctx.enforce(len(shape) == rank or (len(shape) > rank and
                                           all(d in (1, -1) for d in shape[rank:])), lambda:
                    f"all inputs must have X[0]'s rank (or a higher one whose extra dims are "
                    f"all 1), but {names[0]} has shape {shape_str(shapes[0])} (rank {rank}) "
                    f"and {name} has shape {shape_str(shape)} (rank {len(shape)})")
    shapes = [shape[:rank] for shape in shapes]
    if ctx.has_input("AxisTensor"):
        ctx.set_output("Out", [-1] * rank, ctx.input_dtype("X"))
        ctx.set_output_lod_level("Out", ctx.input_lod_level("X"))
        return
    axis = _axis(ctx, shapes)
    out = list(shapes[0])
    for name, shape in zip(names[1:], shapes[1:], strict=True):
        for i, (a, b) in enumerate(zip(out, shape, strict=True)):
            if i == axis:
                continue
            ctx.enforce(dims_match(a, b), lambda:
                        f"inputs must agree on every dim but axis {axis}, but {names[0]} has "
                        f"shape {shape_str(shapes[0])} and {name} has {shape_str(shape)}")
            out[i] = max(a, b)
    sizes = [s[axis] for s in shapes]
    out[axis] = -1 if any(d < 0 for d in sizes) else sum(sizes)
    dtypes = [ctx.input_dtype("X", i) for i in range(len(names))]
    for name, dt in zip(names, dtypes, strict=True):
        ctx.enforce(dt == dtypes[0], lambda: f"all inputs must have one dtype, but {names[0]} is "
                                     f"{dtypes[0]} and {name} is {dt}", hint="insert a cast op")
    ctx.set_output("Out", out, dtypes[0])
    # X[0]'s depth; the kernel builds the LoD itself (a share would overwrite it).
    ctx.set_output_lod_level("Out", ctx.input_lod_level("X"))


@concat.kernel(dtypes=ALL_DTYPES, lod=True)
def concat_dense(attrs, xs, axis_tensor):
    rank = xs[0].numpy().ndim
    # an input of a higher rank has only 1s past X[0]'s rank (infer_shape checked)
    arrays = [a if a.ndim == rank else a.reshape(a.shape[:rank])
              for a in (x.numpy() for x in xs)]
    axis = _run_axis(attrs, None if axis_tensor is None else axis_tensor.numpy(),
                     arrays[0].ndim)
    out = np.concatenate(arrays, axis=axis)
    if not xs[0].offsets:
        return out
    if axis % out.ndim != 0:
        return LoDTensor.unchecked(out, xs[0].offsets)
    return LoDTensor.unchecked(out, _appended_lod(xs))


def _appended_lod(xs) -> tuple:
    """X[0]'s LoD with every later input's sequences appended, level by level."""
    depth = len(xs[0].offsets)
    for i, x in enumerate(xs[1:], 1):
        if len(x.offsets) != depth:
            raise KernelError(
                f"concat along axis 0: X[0] has {depth} LoD level(s) but X[{i}] has "
                f"{len(x.offsets)}; joining sequence batches needs the same LoD depth in "
                f"every input (Paddle's rule)",
                hint="give every input the same lod_level, or concat along another axis")
    levels = []
    for level in range(depth):
        parts, start = [], 0
        for x in xs:
            offsets = np.asarray(x.offsets[level], dtype=np.int64)
            parts.append(offsets[1:] - offsets[0] + start if parts else offsets)
            start = int(parts[-1][-1])
        levels.append(np.concatenate(parts))
    return tuple(levels)


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
    doc="dX[i] = the slice of dOut along axis that X[i] filled, in X[i]'s shape.",
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
    return [part.reshape(x.shape) for part, x in
            zip(np.split(dout, bounds, axis=axis), xs, strict=True)]
