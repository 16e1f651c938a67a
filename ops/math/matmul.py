"""matmul (+ matmul_grad): Out = alpha * op(X) @ op(Y), batched, with numpy's broadcasting.

op() transposes the last two dims when transpose_X / transpose_Y is set. A 1-D
X of shape [K] is the row [1, K] ([K, 1] when transposed); a 1-D Y is the
column [K, 1] ([1, K] when transposed). Tensors of rank > 2 are stacks of
matrices in their last two dims, and the stack dims broadcast as numpy's do.
The unit dim added to a non-transposed 1-D operand is dropped from Out, so
two 1-D operands give Out of shape [1], as in Fluid 1.x (numpy would give 0-D).

Gradients, in the matrix views, summed over broadcast stack dims:

    d op(X) = alpha * dOut @ op(Y)^T,   d op(Y) = alpha * op(X)^T @ dOut
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.broadcast import reduce_to_shape
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.grad import infer_grads_like_inputs
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [
    Attr("transpose_X", "bool", False, "transpose X's last two dims first"),
    Attr("transpose_Y", "bool", False, "transpose Y's last two dims first"),
    Attr("alpha", "float", 1.0, "a factor applied to the product"),
    Attr("head_number", "int", 1, "Paddle's multi-head split of Y (GPU/oneDNN only): must be 1"),
]


def _operand_shape(shape, transpose: bool, is_x: bool) -> tuple[list[int], bool]:
    """The shape op(operand) takes as a (stack of) matrices, and whether Out drops its unit dim."""
    shape = list(shape)
    if len(shape) == 1:
        row = [1, shape[0]]
        col = [shape[0], 1]
        if is_x:
            return (col if transpose else row), not transpose
        return (row if transpose else col), not transpose
    if transpose:
        shape[-2], shape[-1] = shape[-1], shape[-2]
    return shape, False


def _broadcast_batch(a, b) -> list[int] | None:
    """numpy's broadcast of two stacks' dims, with -1 for unknown; None if they clash."""
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + list(a)
    b = [1] * (n - len(b)) + list(b)
    out = []
    for p, q in zip(a, b, strict=True):
        if p == q or q == 1:
            out.append(p)
        elif p == 1:
            out.append(q)
        elif p < 0 or q < 0:
            out.append(max(p, q))
        else:
            return None
    return out


def _matrix_view(a: np.ndarray, transpose: bool, is_x: bool) -> np.ndarray:
    if a.ndim == 1:
        return a.reshape(_operand_shape(a.shape, transpose, is_x)[0])
    return np.swapaxes(a, -1, -2) if transpose else a


matmul = register_op(
    "matmul",
    inputs=[In("X", "the left operand, rank >= 1"), In("Y", "the right operand, rank >= 1")],
    outputs=[Out("Out", "alpha * op(X) @ op(Y)")],
    attrs=_ATTRS,
    fallback=True,
    doc=__doc__,
)


@matmul.infer_shape
def _(ctx):
    heads = ctx.attr("head_number")
    ctx.enforce(heads == 1, lambda: f"head_number={heads} (Paddle's multi-head matmul) is not "
                            f"supported; only head_number=1")
    infer_product(ctx, ctx.attr("transpose_X"), ctx.attr("transpose_Y"))


def infer_product(ctx, tx: bool, ty: bool, names=("transpose_X", "transpose_Y")) -> None:
    """Out's shape and dtype for op(X) @ op(Y) (shared with matmul_v2)."""
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    ctx.enforce(len(x) >= 1 and len(y) >= 1,
                lambda: f"X and Y must have rank >= 1, got X.shape={shape_str(x)} and "
                f"Y.shape={shape_str(y)}")
    xm, drop_row = _operand_shape(x, tx, is_x=True)
    ym, drop_col = _operand_shape(y, ty, is_x=False)
    if not dims_match(xm[-1], ym[-2]):
        ctx.fail(f"the contracted dims must agree: op(X).shape[-1]={xm[-1]} but "
                 f"op(Y).shape[-2]={ym[-2]} (X.shape={shape_str(x)}, {names[0]}={tx}; "
                 f"Y.shape={shape_str(y)}, {names[1]}={ty})")
    batch = _broadcast_batch(xm[:-2], ym[:-2])
    if batch is None:
        ctx.fail(f"the batch dims {shape_str(xm[:-2])} of X and {shape_str(ym[:-2])} of Y "
                 f"do not broadcast (X.shape={shape_str(x)}, Y.shape={shape_str(y)})")
    x_dtype, y_dtype = ctx.input_dtype("X"), ctx.input_dtype("Y")
    ctx.enforce(x_dtype == y_dtype,
                lambda: f"X and Y must have the same dtype, got X {x_dtype} and Y {y_dtype}",
                hint="insert a cast op")
    out = batch + ([] if drop_row else [xm[-2]]) + ([] if drop_col else [ym[-1]])
    ctx.set_output("Out", out or [1], x_dtype)  # a dot product is [1] (Fluid 1.x)


@matmul.kernel(dtypes=FLOATS)
def matmul_dense(attrs, x, y):
    out = np.matmul(_matrix_view(x, attrs["transpose_X"], True),
                    _matrix_view(y, attrs["transpose_Y"], False))
    if x.ndim == 1 and not attrs["transpose_X"]:
        out = out[..., 0, :]
    if y.ndim == 1 and not attrs["transpose_Y"]:
        out = out[..., 0]
    if out.ndim == 0:
        out = out.reshape(1)
    alpha = attrs["alpha"]
    if alpha != 1.0:
        out *= alpha  # out is matmul's fresh result (or a view of it)
    return out


@matmul.grad_maker
def _(g):
    return [g.grad_op(
        "matmul_grad",
        inputs={"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.output_grad("Out")},
        outputs={"X@GRAD": g.input_grad("X"), "Y@GRAD": g.input_grad("Y")},
        attrs={k: g.attr(k) for k in ("transpose_X", "transpose_Y", "alpha", "head_number")})]


matmul_grad = register_op(
    "matmul_grad",
    inputs=[In("X"), In("Y"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("Y@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    fallback=True,
    doc="Gradients of matmul w.r.t. X and Y, summed over broadcast batch dims.",
)


matmul_grad.infer_shape(infer_grads_like_inputs)


def _back_to_operand(grad_view: np.ndarray, a: np.ndarray, transpose: bool, is_x: bool):
    """A gradient w.r.t. op(a)'s matrix view, summed over broadcast dims and laid out as a."""
    view_shape = _operand_shape(a.shape, transpose, is_x)[0]
    grad_view = reduce_to_shape(grad_view, tuple(view_shape))
    if a.ndim > 1 and transpose:
        grad_view = np.swapaxes(grad_view, -1, -2)
    return grad_view.reshape(a.shape).astype(a.dtype, copy=False)


@matmul_grad.kernel(dtypes=FLOATS)
def matmul_grad_dense(attrs, x, y, dout):
    tx, ty, alpha = attrs["transpose_X"], attrs["transpose_Y"], attrs["alpha"]
    xm, ym = _matrix_view(x, tx, True), _matrix_view(y, ty, False)
    # dOut with the unit dims of 1-D operands put back: [..., M, N].
    batch = np.broadcast_shapes(xm.shape[:-2], ym.shape[:-2])
    dout = dout.reshape(batch + (xm.shape[-2], ym.shape[-1]))
    if alpha != 1.0:
        dout = np.multiply(dout, alpha, dtype=dout.dtype)
    dx = _back_to_operand(np.matmul(dout, np.swapaxes(ym, -1, -2)), x, tx, True)
    dy = _back_to_operand(np.matmul(np.swapaxes(xm, -1, -2), dout), y, ty, False)
    return dx, dy
