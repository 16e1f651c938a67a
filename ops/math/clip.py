"""clip (+ _grad), clip_by_norm and squared_l2_norm (+ _grad): the ops gradient clipping
is made of.

    clip             Out = min(max(X, min), max);  dX = dOut * (min < X < max)
    clip_by_norm     Out = X * max_norm / ||X||_2 if ||X||_2 > max_norm, else X (no gradient)
    squared_l2_norm  Out = sum(X^2), shape [1];    dX = 2 * X * dOut

clip and clip_by_norm keep a SelectedRows X row-sparse, as Paddle does for
sparse gradients: duplicate rows are merged (summed) first, then clip acts on
the stored values and clip_by_norm takes the norm of the merged rows (the
norm of the dense gradient they stand for).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.storage import register_rowwise

clip = register_op(
    "clip",
    inputs=[In("X", "dense or SelectedRows")],
    outputs=[Out("Out", "X clipped to [min, max]; SelectedRows stays SelectedRows (merged)")],
    attrs=[Attr("min", "float", 0.0, "the lower bound"),
           Attr("max", "float", 0.0, "the upper bound, >= min")],
    doc=__doc__,
)


@clip.infer_shape
def _(ctx):
    ctx.enforce(ctx.attr("min") <= ctx.attr("max"), lambda:
                f"attr min must be <= max, got min={ctx.attr('min')} and max={ctx.attr('max')}")
    same_as_input(ctx)


def clip_values(attrs, x: np.ndarray) -> np.ndarray:
    return np.clip(x, attrs["min"], attrs["max"]).astype(x.dtype, copy=False)


clip.kernel(dtypes=FLOATS)(clip_values)
register_rowwise(clip, clip_values)


@clip.grad_maker
def _(g):
    return [g.grad_op("clip_grad", inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"min": g.attr("min"), "max": g.attr("max")})]


clip_grad = register_op(
    "clip_grad",
    inputs=[In("X"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("min", "float", 0.0), Attr("max", "float", 0.0)],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut where min < X < max, else 0.",
)


@clip_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))
    ctx.share_lod("X", "X@GRAD")


@clip_grad.kernel(dtypes=FLOATS)
def clip_grad_kernel(attrs, x, dout):
    inside = (x > attrs["min"]) & (x < attrs["max"])
    return (dout * inside).astype(dout.dtype)


clip_by_norm = register_op(
    "clip_by_norm",
    inputs=[In("X", "dense or SelectedRows")],
    outputs=[Out("Out", "X rescaled to L2 norm <= max_norm")],
    attrs=[Attr("max_norm", "float", doc="the largest L2 norm Out may have")],
    doc=__doc__,
)


@clip_by_norm.infer_shape
def _(ctx):
    ctx.enforce(ctx.attr("max_norm") > 0,
                lambda: f"attr max_norm must be > 0, got {ctx.attr('max_norm')}")
    same_as_input(ctx)


def clip_norm_values(attrs, x: np.ndarray) -> np.ndarray:
    max_norm = attrs["max_norm"]
    norm = float(np.sqrt(np.sum(np.square(x, dtype=np.float64))))
    if norm <= max_norm:
        return x.copy()
    return (x * (max_norm / norm)).astype(x.dtype, copy=False)


clip_by_norm.kernel(dtypes=FLOATS)(clip_norm_values)
register_rowwise(clip_by_norm, clip_norm_values)  # the norm of the merged rows


squared_l2_norm = register_op(
    "squared_l2_norm",
    inputs=[In("X")],
    outputs=[Out("Out", "[1]: sum(X^2)")],
    fallback=True,
    doc="Out = sum(X^2), shape [1].",
)


@squared_l2_norm.infer_shape
def _(ctx):
    ctx.set_output("Out", (1,), ctx.input_dtype("X"))


@squared_l2_norm.kernel(dtypes=FLOATS)
def squared_l2_norm_kernel(attrs, x):
    return np.asarray([np.sum(np.square(x))], dtype=x.dtype)


@squared_l2_norm.grad_maker
def _(g):
    return [g.grad_op("squared_l2_norm_grad",
                      inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


squared_l2_norm_grad = register_op(
    "squared_l2_norm_grad",
    inputs=[In("X"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX = 2 * X * dOut.",
)


@squared_l2_norm_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


@squared_l2_norm_grad.kernel(dtypes=FLOATS)
def squared_l2_norm_grad_kernel(attrs, x, dout):
    return (2 * x * dout.reshape(())).astype(x.dtype)
