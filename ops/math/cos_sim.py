"""cos_sim (+ _grad): the cosine similarity of the rows of X and Y (Paddle's cos_sim op).

X is [N, ...] and Y is [N, ...] or [1, ...] (one row compared with every row
of X); both are flattened to rows of the same width.

    XNorm = |x_i|, YNorm = |y_i|, Out = x_i . y_i / (|x_i| |y_i|)        ([N, 1] each)
    dX_i = dOut_i (y_i / (|x_i| |y_i|) - Out_i x_i / |x_i|^2)
    dY_i = dOut_i (x_i / (|x_i| |y_i|) - Out_i y_i / |y_i|^2)   (summed over i when Y is one row)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.registry import FLOATS, In, Out, register_op

cos_sim = register_op(
    "cos_sim",
    inputs=[In("X", "[N, ...]"), In("Y", "[N, ...] or [1, ...]")],
    outputs=[Out("Out", "[N, 1]"), Out("XNorm", "[N, 1]"), Out("YNorm", "[N or 1, 1]")],
    doc=__doc__,
)


@cos_sim.infer_shape
def _(ctx):
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    ctx.enforce(len(x) >= 2 and len(x) == len(y),
                lambda: f"X and Y must have the same rank (>= 2), got X {shape_str(x)} and Y "
                f"{shape_str(y)}")
    ctx.enforce(all(dims_match(a, b) for a, b in zip(x[1:], y[1:], strict=True)),
                lambda: f"X and Y must agree in every dim but the first, got {shape_str(x)} and "
                f"{shape_str(y)}")
    ctx.enforce(dims_match(y[0], x[0]) or y[0] == 1,
                lambda: f"Y must have X's rows ({x[0]}) or one row, got {shape_str(y)}")
    dtype = ctx.input_dtype("X")
    ctx.set_output("Out", (x[0], 1), dtype)
    ctx.share_lod("X", "Out")
    ctx.set_output("XNorm", (x[0], 1), dtype)
    ctx.set_output("YNorm", (y[0], 1), dtype)


def _rows(a: np.ndarray) -> np.ndarray:
    return a.reshape(a.shape[0], -1)


@cos_sim.kernel(dtypes=FLOATS)
def cos_sim_kernel(attrs, x, y):
    x2, y2 = _rows(x), _rows(y)
    x_norm = np.sqrt((x2 * x2).sum(axis=1, keepdims=True))
    y_norm = np.sqrt((y2 * y2).sum(axis=1, keepdims=True))
    out = (x2 * y2).sum(axis=1, keepdims=True) / (x_norm * y_norm)
    return out, x_norm, y_norm


@cos_sim.grad_maker
def _(g):
    return [g.grad_op("cos_sim_grad",
                      inputs={"X": g.input("X"), "Y": g.input("Y"), "Out": g.output("Out"),
                              "XNorm": g.output("XNorm"), "YNorm": g.output("YNorm"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X"), "Y@GRAD": g.input_grad("Y")})]


cos_sim_grad = register_op(
    "cos_sim_grad",
    inputs=[In("X"), In("Y"), In("Out"), In("XNorm"), In("YNorm"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("Y@GRAD", dispensable=True)],
    doc="dX and dY of cos_sim (see its formulas).",
)


@cos_sim_grad.infer_shape
def _(ctx):
    for slot in ("X", "Y"):
        ctx.set_output(grad_name(slot), ctx.input_shape(slot), ctx.input_dtype(slot))
    ctx.share_lod("X", "X@GRAD")


@cos_sim_grad.kernel(dtypes=FLOATS)
def cos_sim_grad_kernel(attrs, x, y, out, x_norm, y_norm, dout):
    x2, y2 = _rows(x), _rows(y)
    denom = x_norm * y_norm
    dx = dout * (y2 / denom - out * x2 / (x_norm * x_norm))
    dy = dout * (x2 / denom - out * y2 / (y_norm * y_norm))
    if y2.shape[0] == 1 and x2.shape[0] != 1:
        dy = dy.sum(axis=0, keepdims=True)
    return dx.reshape(x.shape), dy.reshape(y.shape)
