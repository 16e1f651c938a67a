"""layer_norm (+ layer_norm_grad): normalise each row over the dims from begin_norm_axis on.

X is viewed as a matrix [left, right], left = prod(X.shape[:begin_norm_axis]),
right = prod(X.shape[begin_norm_axis:]). Per row r:

    Mean[r] = mean(X[r]),  Variance[r] = mean((X[r] - Mean[r])^2)   (biased)
    Y[r] = (X[r] - Mean[r]) / sqrt(Variance[r] + epsilon) * Scale + Bias

Scale and Bias ([right]) are optional. Mean and Variance are [left].
Gradients, with xhat = (X - Mean) * inv_std and g = dY * Scale per row:

    dX = inv_std * (g - mean(g) - xhat * mean(g * xhat)),
    dScale = sum_rows dY * xhat,  dBias = sum_rows dY
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [
    Attr("epsilon", "float", 1e-5, "added to the variance"),
    Attr("begin_norm_axis", "int", 1, "the first dim normalised over"),
]

layer_norm = register_op(
    "layer_norm",
    inputs=[In("X"), In("Scale", "[right]", dispensable=True),
            In("Bias", "[right]", dispensable=True)],
    outputs=[Out("Y"), Out("Mean", "[left]", dispensable=True),
             Out("Variance", "[left]", dispensable=True)],
    attrs=_ATTRS,
    doc=__doc__,
)


def _split(shape, axis: int) -> tuple[int, int]:
    def prod(dims):
        return -1 if any(d < 0 for d in dims) else math.prod(dims)

    return prod(shape[:axis]), prod(shape[axis:])


@layer_norm.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    axis = ctx.attr("begin_norm_axis")
    ctx.enforce(0 < axis < len(x) or (axis == 0 and len(x) > 0),
                lambda: f"begin_norm_axis must be in [0, {len(x)}) for X.shape={shape_str(x)}, "
                f"got {axis}")
    left, right = _split(x, axis)
    for slot in ("Scale", "Bias"):
        if ctx.has_input(slot):
            shape = ctx.input_shape(slot)
            ctx.enforce(len(shape) == 1 and dims_match(shape[0], right),
                        lambda: f"{slot} must be [{right}] (X.shape={shape_str(x)} normalised from "
                        f"axis {axis}), got {slot}.shape={shape_str(shape)}")
    ctx.set_output("Y", x, ctx.input_dtype("X"))
    ctx.share_lod("X", "Y")
    ctx.set_output("Mean", [left], ctx.input_dtype("X"))
    ctx.set_output("Variance", [left], ctx.input_dtype("X"))


def _rows(x: np.ndarray, axis: int) -> np.ndarray:
    return x.reshape(math.prod(x.shape[:axis]), -1)


@layer_norm.kernel(dtypes=FLOATS)
def layer_norm_dense(attrs, x, scale, bias):
    rows = _rows(x, attrs["begin_norm_axis"])
    mean = rows.mean(axis=1)
    centered = rows - mean[:, None]
    var = np.square(centered).mean(axis=1)
    y = centered  # a fresh array: normalized in place
    y *= (1 / np.sqrt(var + attrs["epsilon"]))[:, None].astype(x.dtype)
    if scale is not None:
        y *= scale
    if bias is not None:
        y += bias
    return y.reshape(x.shape), mean, var


@layer_norm.grad_maker
def _(g):
    inputs = {"X": g.input("X"), "Scale": g.input("Scale"), "Bias": g.input("Bias"),
              "Mean": g.output("Mean"), "Variance": g.output("Variance"),
              "Y@GRAD": g.output_grad("Y")}
    return [g.grad_op("layer_norm_grad", inputs=inputs,
                      outputs={"X@GRAD": g.input_grad("X"), "Scale@GRAD": g.input_grad("Scale"),
                               "Bias@GRAD": g.input_grad("Bias")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


layer_norm_grad = register_op(
    "layer_norm_grad",
    inputs=[In("X"), In("Scale", dispensable=True), In("Bias", dispensable=True,
                                                        no_need_buffer=True),
            In("Mean"), In("Variance"), In("Y@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("Scale@GRAD", dispensable=True),
             Out("Bias@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Y@GRAD"],
    doc="Gradients of layer_norm w.r.t. X, Scale and Bias (see layer_norm).",
)


@layer_norm_grad.infer_shape
def _(ctx):
    ctx.enforce(ctx.has_input("Mean") and ctx.has_input("Variance"),
                "layer_norm_grad needs the forward op's Mean and Variance outputs")
    for slot in ("X", "Scale", "Bias"):
        if ctx.has_input(slot):
            ctx.set_output(grad_name(slot), ctx.input_shape(slot), ctx.input_dtype(slot))
    ctx.share_lod("X", "X@GRAD")


@layer_norm_grad.kernel(dtypes=FLOATS)
def layer_norm_grad_dense(attrs, x, scale, bias, mean, var, dy):
    axis = attrs["begin_norm_axis"]
    rows, drows = _rows(x, axis), _rows(dy, axis)
    inv_std = (1 / np.sqrt(var + attrs["epsilon"]))[:, None]
    xhat = (rows - mean[:, None]) * inv_std
    g = drows * scale if scale is not None else drows
    dx = inv_std * (g - g.mean(axis=1, keepdims=True)
                    - xhat * (g * xhat).mean(axis=1, keepdims=True))
    dscale = (drows * xhat).sum(axis=0) if scale is not None else None
    dbias = drows.sum(axis=0) if bias is not None else None
    return dx.reshape(x.shape).astype(x.dtype, copy=False), dscale, dbias
