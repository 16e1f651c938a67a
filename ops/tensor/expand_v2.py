"""expand_v2, expand_as_v2 and tile (+ _grad): Paddle 2.x's broadcasting and tiling.

    expand_v2     Out = broadcast_to(X, shape); shape aligns with X's trailing dims, -1
                  keeps X's dim, a dim of X is 1 or equal to the target
    expand_as_v2  Out = broadcast_to(X, Y.shape) (target_shape when Y is not bound)
    tile          Out = np.tile(X, repeat_times) (shorter lists are padded with leading 1s,
                  longer ones give X leading dims of 1)
    dX = dOut summed over the broadcast (or repeated) copies

A shape given as tensors (Shape, expand_shapes_tensor, RepeatTimes, repeat_times_tensor)
overrides the attribute, as in Paddle.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op


def _from_tensors(whole, parts) -> list[int] | None:
    """The int list a shape tensor (or a list of one-element tensors) holds, or None."""
    if whole is not None:
        return [int(v) for v in np.asarray(whole).reshape(-1)]
    if parts:
        return [int(np.asarray(p).reshape(-1)[0]) for p in parts]
    return None


def broadcast_target(x_shape, shape) -> list[int]:
    """expand_v2's output shape; raises ValueError naming the clash."""
    shape = list(shape)
    if len(shape) < len(x_shape):
        raise ValueError(f"shape {shape} has fewer dims than X {shape_str(x_shape)}")
    lead = len(shape) - len(x_shape)
    out = []
    for k, want in enumerate(shape):
        have = x_shape[k - lead] if k >= lead else None
        if want == -1:
            if have is None:
                raise ValueError(f"shape {shape}: -1 is only allowed for X's own dims")
            out.append(have)
        elif have is None or have in (1, want) or have < 0:
            out.append(want)
        else:
            raise ValueError(f"dim {k} of X {shape_str(x_shape)} is {have}: it must be 1 or "
                             f"{want} to expand to {shape}")
    return out


def sum_to_shape(dout: np.ndarray, shape) -> np.ndarray:
    """dOut summed down to `shape` (the inverse of broadcasting)."""
    lead = dout.ndim - len(shape)
    d = dout.sum(axis=tuple(range(lead))) if lead else dout
    axes = tuple(k for k, n in enumerate(shape) if n == 1 and d.shape[k] != 1)
    if axes:
        d = d.sum(axis=axes, keepdims=True)
    return np.ascontiguousarray(d.reshape(shape), dtype=dout.dtype)


def _grad_op(kind: str):
    return register_op(
        f"{kind}_grad",
        inputs=[In("X", no_need_buffer=True), In("Out@GRAD")],
        outputs=[Out("X@GRAD", dispensable=True)],
        key_inputs=["Out@GRAD"],
        doc="dX = dOut summed over the copies of each element of X.",
    )


def _infer_grad(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


def _maker(kind: str):
    def maker(g):
        return [g.grad_op(f"{kind}_grad",
                          inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                          outputs={"X@GRAD": g.input_grad("X")})]
    return maker


# --- expand_v2 --------------------------------------------------------------------------

expand_v2 = register_op(
    "expand_v2",
    inputs=[In("X"), In("Shape", "int tensor: the target shape", dispensable=True),
            In("expand_shapes_tensor", "one int tensor per target dim", duplicable=True,
               dispensable=True)],
    outputs=[Out("Out", "X broadcast to shape")],
    attrs=[Attr("shape", "ints", [], "the target shape (-1 keeps X's dim)")],
    doc=__doc__,
)


@expand_v2.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    if ctx.has_input("Shape") or ctx.has_input("expand_shapes_tensor"):
        n = (ctx.input_count("expand_shapes_tensor") if ctx.has_input("expand_shapes_tensor")
             else max(ctx.input_shape("Shape")[0], len(x)))
        ctx.set_output("Out", [-1] * n, ctx.input_dtype("X"))
        return
    try:
        out = broadcast_target(x, ctx.attr("shape"))
    except ValueError as e:
        ctx.fail(str(e))
    ctx.set_output("Out", out, ctx.input_dtype("X"))


@expand_v2.kernel(dtypes=ALL_DTYPES)
def expand_v2_kernel(attrs, x, shape, shape_parts):
    target = _from_tensors(shape, shape_parts)
    source = "its Shape input's values" if target else "its shape attribute"
    out = broadcast_target(x.shape, target or attrs["shape"])
    check_allocation("expand_v2", out, x.dtype, source)  # a shape read from a tensor
    return np.ascontiguousarray(np.broadcast_to(x, out))


expand_v2.grad_maker(_maker("expand_v2"))
expand_v2_grad = _grad_op("expand_v2")
expand_v2_grad.infer_shape(_infer_grad)


@expand_v2_grad.kernel(dtypes=FLOATS)
def sum_back_to_x(attrs, x, dout):
    """dX of a broadcast: dOut summed over the broadcast dims (expand_v2, expand_as_v2)."""
    return sum_to_shape(dout, x.shape)


# --- expand_as_v2 -----------------------------------------------------------------------

expand_as_v2 = register_op(
    "expand_as_v2",
    inputs=[In("X"), In("Y", "its shape is the target", dispensable=True, no_need_buffer=True)],
    outputs=[Out("Out", "X broadcast to Y's shape")],
    attrs=[Attr("target_shape", "ints", [], "the target shape when Y is not bound")],
    doc=__doc__,
)


@expand_as_v2.infer_shape
def _(ctx):
    target = ctx.input_shape("Y") if ctx.has_input("Y") else ctx.attr("target_shape")
    try:
        out = broadcast_target(ctx.input_shape("X"), target)
    except ValueError as e:
        ctx.fail(str(e))
    ctx.set_output("Out", out, ctx.input_dtype("X"))


@expand_as_v2.kernel(dtypes=ALL_DTYPES)
def expand_as_v2_kernel(attrs, x, y):
    target = y.shape if y is not None else attrs["target_shape"]
    return np.ascontiguousarray(np.broadcast_to(x, broadcast_target(x.shape, target)))


expand_as_v2.grad_maker(_maker("expand_as_v2"))
expand_as_v2_grad = _grad_op("expand_as_v2")
expand_as_v2_grad.infer_shape(_infer_grad)


expand_as_v2_grad.kernel(dtypes=FLOATS)(sum_back_to_x)


# --- tile -------------------------------------------------------------------------------

tile = register_op(
    "tile",
    inputs=[In("X"), In("RepeatTimes", "int tensor: the repeats", dispensable=True),
            In("repeat_times_tensor", "one int tensor per repeat", duplicable=True,
               dispensable=True)],
    outputs=[Out("Out", "X repeated")],
    attrs=[Attr("repeat_times", "ints", [], "copies along each dim (aligned to the end)")],
    doc=__doc__,
)


@tile.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    if ctx.has_input("RepeatTimes") or ctx.has_input("repeat_times_tensor"):
        n = (ctx.input_count("repeat_times_tensor") if ctx.has_input("repeat_times_tensor")
             else ctx.input_shape("RepeatTimes")[0])
        ctx.set_output("Out", [-1] * max(n, len(x)), ctx.input_dtype("X"))
        return
    reps = list(ctx.attr("repeat_times"))
    ctx.enforce(all(r >= 1 for r in reps), lambda: f"repeat_times must be >= 1, got {reps}")
    n = max(len(reps), len(x))
    reps = [1] * (n - len(reps)) + reps
    xs = [1] * (n - len(x)) + list(x)
    ctx.set_output("Out", [d * r if d >= 0 else -1 for d, r in zip(xs, reps, strict=True)],
                   ctx.input_dtype("X"))


@tile.kernel(dtypes=ALL_DTYPES)
def tile_kernel(attrs, x, repeat, repeat_parts):
    reps = _from_tensors(repeat, repeat_parts) or attrs["repeat_times"]
    if min(reps, default=1) < 1:
        raise ValueError(f"tile: repeat_times must be >= 1, got {reps}")
    n = max(len(reps), x.ndim)
    xs = [1] * (n - x.ndim) + list(x.shape)
    out = [d * r for d, r in zip(xs, [1] * (n - len(reps)) + list(reps), strict=True)]
    check_allocation("tile", out, x.dtype, "its RepeatTimes values" if repeat is not None
                     or repeat_parts else "its repeat_times attribute")
    return np.tile(x, reps)


tile.grad_maker(_maker("tile"))
tile_grad = register_op(
    "tile_grad",
    inputs=[In("X", no_need_buffer=True), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("repeat_times", "ints", [])],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut summed over the tiles.",
)
tile_grad.infer_shape(_infer_grad)


@tile_grad.kernel(dtypes=FLOATS)
def tile_grad_kernel(attrs, x, dout):
    # dOut has X's dims (with leading 1s) times the repeats: view it as [r0, x0, r1, x1, ...].
    xs = (1,) * (dout.ndim - x.ndim) + x.shape
    split = [v for d, n in zip(dout.shape, xs, strict=True) for v in (d // n, n)]
    dx = dout.reshape(split).sum(axis=tuple(range(0, 2 * len(xs), 2)))
    return np.ascontiguousarray(dx.reshape(x.shape), dtype=dout.dtype)
