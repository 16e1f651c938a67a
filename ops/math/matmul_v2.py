"""matmul_v2 (+ matmul_v2_grad): Out = op(X) @ op(Y), numpy's matmul with transposes.

op() swaps the last two dims when trans_x / trans_y is set; a 1-D operand is
never transposed (Paddle 2.x): a 1-D X [K] acts as [1, K] and a 1-D Y as
[K, 1], and those unit dims are dropped from Out; two 1-D operands give [1]
as matmul does (Fluid 1.x and Paddle 2.0-2.4; Paddle 2.5+ gives a 0-D result).
Stack dims broadcast as in numpy. Gradients as for matmul (ops/math/matmul.py) with
alpha = 1, summed over broadcast dims.
"""

from __future__ import annotations

from paddle_ir.ops.grad import infer_grads_like_inputs
from paddle_ir.ops.math.matmul import (
    infer_product,
    matmul_dense,
    matmul_grad_dense,
)
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [Attr("trans_x", "bool", False, "transpose X's last two dims (rank >= 2)"),
          Attr("trans_y", "bool", False, "transpose Y's last two dims (rank >= 2)")]

matmul_v2 = register_op(
    "matmul_v2",
    inputs=[In("X", "rank >= 1"), In("Y", "rank >= 1")],
    outputs=[Out("Out")],
    attrs=_ATTRS,
    fallback=True,
    doc=__doc__,
)


def _v1_attrs(attrs, x_ndim: int, y_ndim: int) -> dict:
    return {"transpose_X": attrs["trans_x"] and x_ndim > 1,
            "transpose_Y": attrs["trans_y"] and y_ndim > 1, "alpha": 1.0}


@matmul_v2.infer_shape
def _(ctx):
    tx = ctx.attr("trans_x") and len(ctx.input_shape("X")) > 1
    ty = ctx.attr("trans_y") and len(ctx.input_shape("Y")) > 1
    infer_product(ctx, tx, ty, names=("trans_x", "trans_y"))


@matmul_v2.kernel(dtypes=FLOATS)
def matmul_v2_dense(attrs, x, y):
    return matmul_dense(_v1_attrs(attrs, x.ndim, y.ndim), x, y)


@matmul_v2.grad_maker
def _(g):
    return [g.grad_op(
        "matmul_v2_grad",
        inputs={"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.output_grad("Out")},
        outputs={"X@GRAD": g.input_grad("X"), "Y@GRAD": g.input_grad("Y")},
        attrs={"trans_x": g.attr("trans_x"), "trans_y": g.attr("trans_y")})]


matmul_v2_grad = register_op(
    "matmul_v2_grad",
    inputs=[In("X"), In("Y"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("Y@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    fallback=True,
    doc="Gradients of matmul_v2 w.r.t. X and Y, summed over broadcast batch dims.",
)


matmul_v2_grad.infer_shape(infer_grads_like_inputs)


@matmul_v2_grad.kernel(dtypes=FLOATS)
def matmul_v2_grad_dense(attrs, x, y, dout):
    return matmul_grad_dense(_v1_attrs(attrs, x.ndim, y.ndim), x, y, dout)
