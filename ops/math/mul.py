"""mul (+ mul_grad): a matrix product of two tensors flattened to 2-D.

X is viewed as a matrix [prod(X.shape[:x_num_col_dims]), prod(X.shape[x_num_col_dims:])]
and Y as [prod(Y.shape[:y_num_col_dims]), prod(Y.shape[y_num_col_dims:])]:

    Out = flatten(X) @ flatten(Y),  Out.shape = X.shape[:x_num_col_dims] + Y.shape[y_num_col_dims:]

Out has X's LoD. Gradients (in the flattened views, reshaped back):

    dX = dOut @ flatten(Y)^T,   dY = flatten(X)^T @ dOut

A CSR X (sparse features, 2-D) multiplies in scipy.sparse: Out is dense, and
dY = X^T @ dOut is a SELECTED_ROWS whose rows are the feature columns present
in the batch (ops/nn/sparse_dot.py); a CSR X gets no gradient. Other storage mixes
run densified through the fallback.
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.core.kinds import STYPE_CSR
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.context import CSR, LOD_TENSOR, SELECTED_ROWS, dims_match, shape_str
from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.nn.sparse_dot import csr_dot, csr_t_dot
from paddle_ir.ops.registry import DENSE, FLOATS, NUMERIC, Attr, In, Out, register_op


def _flat_dims(shape, num_col_dims: int) -> list[int]:
    """[rows, cols] of `shape` flattened at num_col_dims; -1 when a factor is unknown."""
    def prod(dims):
        return -1 if any(d < 0 for d in dims) else math.prod(dims)

    return [prod(shape[:num_col_dims]), prod(shape[num_col_dims:])]


def _as_matrix(a: np.ndarray, num_col_dims: int) -> np.ndarray:
    return a.reshape(math.prod(a.shape[:num_col_dims]), math.prod(a.shape[num_col_dims:]))


_ATTRS = [
    Attr("x_num_col_dims", "int", 1, "X's first x_num_col_dims dims become the matrix rows"),
    Attr("y_num_col_dims", "int", 1, "Y's first y_num_col_dims dims become the matrix rows"),
]

mul = register_op(
    "mul",
    inputs=[In("X", "the left operand, rank > x_num_col_dims"),
            In("Y", "the right operand (fc's weight), rank > y_num_col_dims")],
    outputs=[Out("Out", "X.shape[:x_num_col_dims] + Y.shape[y_num_col_dims:], with X's LoD")],
    attrs=_ATTRS,
    fallback=True,
    doc=__doc__,
)


def _check_num_col_dims(ctx, slot: str, shape, attr: str) -> int:
    n = ctx.attr(attr)
    ctx.enforce(1 <= n < len(shape),
                lambda: f"{attr} must be in [1, rank of {slot}) = [1, {len(shape)}), got {n} "
                f"({slot}.shape={shape_str(shape)})")
    return n


@mul.infer_shape
def _(ctx):
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    xn = _check_num_col_dims(ctx, "X", x, "x_num_col_dims")
    yn = _check_num_col_dims(ctx, "Y", y, "y_num_col_dims")
    x_mat, y_mat = _flat_dims(x, xn), _flat_dims(y, yn)
    if not dims_match(x_mat[1], y_mat[0]):
        note = ""
        if list(x) != x_mat or list(y) != y_mat:
            note = (f" (flattened from X.shape={shape_str(x)} at x_num_col_dims={xn} and "
                    f"Y.shape={shape_str(y)} at y_num_col_dims={yn})")
        ctx.fail(f"X.shape[1] must equal Y.shape[0], but got X.shape={shape_str(x_mat)} and "
                 f"Y.shape={shape_str(y_mat)}{note}")
    x_dtype, y_dtype = ctx.input_dtype("X"), ctx.input_dtype("Y")
    ctx.enforce(x_dtype == y_dtype,
                lambda: f"X and Y must have the same dtype, got X {x_dtype} and Y {y_dtype}",
                hint="insert a cast op")
    ctx.set_output("Out", tuple(x[:xn]) + tuple(y[yn:]), x_dtype)
    ctx.share_lod("X", "Out")


@mul.kernel(dtypes=NUMERIC)
def mul_dense(attrs, x, y):
    xn, yn = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    out = _as_matrix(x, xn) @ _as_matrix(y, yn)
    return out.reshape(x.shape[:xn] + y.shape[yn:])


@mul.grad_maker
def _(g):
    return [g.grad_op(
        "mul_grad",
        inputs={"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.output_grad("Out")},
        outputs={"X@GRAD": g.input_grad("X"), "Y@GRAD": g.input_grad("Y")},
        attrs={"x_num_col_dims": g.attr("x_num_col_dims"),
               "y_num_col_dims": g.attr("y_num_col_dims")})]


mul_grad = register_op(
    "mul_grad",
    inputs=[In("X"), In("Y"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("Y@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["X", "Out@GRAD"],
    fallback=True,
    doc="dX = dOut @ flatten(Y)^T and dY = flatten(X)^T @ dOut, reshaped to X's and Y's shapes.",
)


@mul_grad.infer_var_type
def _(ctx):
    csr = ctx.input_var_type("X") == CSR
    if csr and ctx.has_output("X@GRAD"):
        ctx.fail_var_type("X is CSR (sparse features): mul_grad gives it no gradient",
                          hint="keep the CSR variable's stop_gradient=True")
    ctx.set_output_type("X@GRAD", LOD_TENSOR)
    row_sparse = csr and ctx.attr("y_num_col_dims") == 1
    ctx.set_output_type("Y@GRAD", SELECTED_ROWS if row_sparse else LOD_TENSOR)


@mul_grad.infer_shape
def _(ctx):
    for slot in ("X", "Y"):
        ctx.set_output(grad_name(slot), ctx.input_shape(slot), ctx.input_dtype(slot))
    ctx.share_lod("X", "X@GRAD")


@mul_grad.kernel(dtypes=FLOATS)
def mul_grad_dense(attrs, x, y, dout):
    xn, yn = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    x_mat, y_mat = _as_matrix(x, xn), _as_matrix(y, yn)
    dout_mat = dout.reshape(x_mat.shape[0], y_mat.shape[1])
    dx = (dout_mat @ y_mat.T).reshape(x.shape)
    dy = (x_mat.T @ dout_mat).reshape(y.shape)
    return dx, dy


@mul.kernel(storage=[STYPE_CSR], dtypes=FLOATS)
def mul_csr(attrs, x, y):
    yn = attrs["y_num_col_dims"]
    return csr_dot(x, _as_matrix(y, yn)).reshape(x.shape[:1] + y.shape[yn:])


@mul_grad.kernel(storage=[STYPE_CSR, DENSE], dtypes=FLOATS)
def mul_grad_csr(attrs, x, y, dout):
    """dY = X^T @ dOut without densifying X: the rows of Y that the batch's columns touch."""
    yn = attrs["y_num_col_dims"]
    y_rows = math.prod(y.shape[:yn])
    touched = csr_t_dot(x, dout.reshape(x.shape[0], -1))
    if yn == 1:
        dy = SelectedRows.unchecked(touched.rows, touched.value.reshape((-1,) + y.shape[1:]),
                                y.shape[0])
    else:  # Y's rows are flattened dims: Y@GRAD was declared dense
        dy = np.zeros((y_rows, touched.value.shape[1]), dtype=y.dtype)
        dy[touched.rows] = touched.value
        dy = dy.reshape(y.shape)
    return None, dy
