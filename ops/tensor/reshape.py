"""reshape (+ reshape_grad): Out = X with the dims given by the `shape` attribute.

Paddle's rules for `shape`: a 0 copies X's dim at the same index, and one -1
is inferred from the element count; any other negative value, a second -1,
or a 0 past X's rank is an error, as is a shape whose element count differs
from X's. At build time a dim that depends on an unknown (-1) dim of X stays
unknown, except that a 0 copying an unknown dim cancels it out of the -1's
inference ([-1, 4, 5] reshaped to [0, -1] is [-1, 20]).

Out keeps X's LoD when its first dim equals X's, as Paddle's InferShape decides
it (at build time an unknown -1 equals an unknown -1, so [-1, D] reshaped to
[-1, 1, D] keeps lod_level; at run time the actual row counts are compared);
otherwise it has none. dX = dOut reshaped to X's shape.
"""

from __future__ import annotations

import math

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op


def share_lod_if_rows_kept(ctx, x_shape, out_shape) -> None:
    """Paddle's rule for the shape ops (reshape, squeeze, unsqueeze and their *2): Out
    shares X's LoD when its first dim is X's, compared as declared (-1 == -1 at build
    time: both are the batch's rows)."""
    if len(x_shape) and len(out_shape) and x_shape[0] == out_shape[0]:
        ctx.share_lod("X", "Out")


def reshaped(x_shape, shape) -> tuple[int, ...] | str:
    """The output shape (-1 where unknown), or a message saying why `shape` is invalid."""
    x_shape, shape = tuple(x_shape), list(shape)
    if shape.count(-1) > 1:
        return f"shape {shape_str(shape)} holds more than one -1; at most one dim can be inferred"
    out = []
    x_left = list(x_shape)  # X's dims not copied by a 0: what the -1 (or the shape) must hold
    for i, d in enumerate(shape):
        if d == 0:
            if i >= len(x_shape):
                return (f"shape[{i}] is 0, which copies X's dim {i}, but X has rank "
                        f"{len(x_shape)} (X.shape={shape_str(x_shape)})")
            out.append(x_shape[i])
            x_left[i] = 1
        elif d < -1:
            return (f"shape[{i}] is {d}; dims must be positive, 0 (copy X's dim) or -1 "
                    f"(inferred), got shape {shape_str(shape)}")
        else:
            out.append(d)
    known = all(d >= 0 for d in x_left)
    numel = math.prod(x_left)
    given = math.prod(d for d in shape if d > 0)
    if not known:
        return tuple(out)
    problem = f"cannot reshape X.shape={shape_str(x_shape)} into {shape_str(shape)}: "
    if -1 in shape:
        if numel % given:
            return problem + f"the -1 would be {numel} / {given}, which is not a whole number"
        out[shape.index(-1)] = numel // given
    elif numel != given:
        if all(d >= 0 for d in x_shape):
            return problem + (f"X has {math.prod(x_shape)} elements, the shape "
                              f"{math.prod(out)}")
        return problem + (f"the dims not copied by a 0 hold {numel} elements in X but "
                          f"{given} in the shape")
    return tuple(out)


reshape = register_op(
    "reshape",
    inputs=[In("X")],
    outputs=[Out("Out", "X's elements in the new shape")],
    attrs=[Attr("shape", "ints", [], "the new shape: 0 copies X's dim, one -1 is inferred")],
    doc=__doc__,
)


@reshape.infer_shape
def _(ctx):
    out = reshaped(ctx.input_shape("X"), ctx.attr("shape"))
    if isinstance(out, str):
        ctx.fail(out)
    ctx.set_output("Out", out, ctx.input_dtype("X"))
    share_lod_if_rows_kept(ctx, ctx.input_shape("X"), out)


@reshape.kernel(dtypes=ALL_DTYPES)
def reshape_dense(attrs, x):
    return x.reshape(reshaped(x.shape, attrs["shape"]))


@reshape.grad_maker
def _(g):
    return [g.grad_op("reshape_grad",
                      inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"shape": g.attr("shape")})]


reshape_grad = register_op(
    "reshape_grad",
    inputs=[In("X"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("shape", "ints", [], "the forward op's shape attribute")],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut reshaped to X's shape.",
)


@reshape_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


@reshape_grad.kernel(dtypes=FLOATS)
def reshape_grad_dense(attrs, x, dout):
    return dout.reshape(x.shape)
