"""sparse_dot: a CSR matrix times a dense or SELECTED_ROWS matrix (MXNet's sparse.dot).

    transpose_x = False:  Out = X @ Y,    X [M, K] CSR, Y [K, N]  ->  Out [M, N] dense
    transpose_x = True:   Out = X^T @ Y,  X [M, K] CSR, Y [M, N]  ->  Out [K, N] SELECTED_ROWS

X^T @ Y is row-sparse: only the columns of X that hold an entry give non-zero
rows, so Out is a SELECTED_ROWS whose rows are those columns, sorted (MXNet's
dot(csr.T, dense) -> row_sparse). Both directions run in scipy.sparse and never
build a dense [K, N] or [M, K] temporary; a SELECTED_ROWS Y is used through its
stored rows only.

Gradient w.r.t. Y (X is data and gets none):
    transpose_x = False:  dY = X^T @ dOut  (a sparse_dot with transpose_x = True: the
                          rows of a linear model's weight that the batch touched)
    transpose_x = True:   dY = X @ dOut
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.kinds import STYPE_CSR, STYPE_DENSE, STYPE_SELECTED_ROWS, var_type_name
from paddle_ir.core.segments import group_by_key, segment_sum
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.context import CSR, LOD_TENSOR, SELECTED_ROWS, dims_match, shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.storage import unique_rows

# --- the math, shared with other ops' CSR kernels ------------------------------------------


def csr_dot(x: CSRTensor, y) -> np.ndarray:
    """X @ Y as a dense array, for a dense or SelectedRows Y."""
    xs = x.to_scipy()
    if isinstance(y, SelectedRows):
        y = unique_rows(y)
        out = xs[:, y.rows] @ y.value if y.rows.size else np.zeros(
            (x.shape[0],) + y.value.shape[1:], dtype=y.dtype)
    else:
        out = xs @ y
    return np.asarray(out).astype(np.result_type(x.dtype, y.dtype), copy=False)


def csr_t_dot(x: CSRTensor, y) -> SelectedRows:
    """X^T @ Y as a SelectedRows whose rows are the columns of X that hold an entry."""
    xs = x.to_scipy()
    if isinstance(y, SelectedRows):
        y = unique_rows(y)
        xs, y_rows = xs[y.rows], y.value  # only the rows of X that meet a stored row of Y
    else:
        y_rows = y
    # Group X's entries by column (a linear-time bucket pass would cost O(K) for the K
    # columns, most of them empty); the stable sort keeps each column's entries in row
    # order, the order in which X^T @ Y adds them, so this equals scipy's X.T @ Y.
    dtype = np.result_type(x.dtype, y.dtype)
    order, cols, offsets = group_by_key(xs.indices)
    row_of_entry = np.repeat(np.arange(xs.shape[0], dtype=np.int64), np.diff(xs.indptr))
    value = segment_sum(np.asarray(y_rows, dtype=dtype), offsets,
                        weights=xs.data[order].astype(dtype, copy=False),
                        row_order=row_of_entry[order])
    return SelectedRows.unchecked(cols.astype(np.int64, copy=False), value, x.shape[1])


# --- the op ---------------------------------------------------------------------------------

sparse_dot = register_op(
    "sparse_dot",
    inputs=[In("X", "a CSR matrix [M, K] (sparse features)"),
            In("Y", "a dense or SELECTED_ROWS matrix")],
    outputs=[Out("Out", "X @ Y (dense) or X^T @ Y (SELECTED_ROWS)")],
    attrs=[Attr("transpose_x", "bool", False, "multiply by X^T instead of X")],
    key_inputs=["X", "Y"],
    doc=__doc__,
)


@sparse_dot.infer_var_type
def _(ctx):
    x_type = ctx.input_var_type("X")
    if x_type != CSR:
        ctx.fail_var_type(f"sparse_dot requires X to be CSR, got {var_type_name(x_type)}",
                          hint="use mul or matmul for a dense X, or cast_storage(x, 'csr')")
    ctx.set_output_type("Out", SELECTED_ROWS if ctx.attr("transpose_x") else LOD_TENSOR)


@sparse_dot.infer_shape
def _(ctx):
    x, y = ctx.input_shape("X"), ctx.input_shape("Y")
    ctx.enforce(len(x) == 2 and len(y) == 2, lambda:
                f"X and Y must be 2-D, got X.shape={shape_str(x)} and Y.shape={shape_str(y)}")
    transpose = ctx.attr("transpose_x")
    inner, outer = (x[0], x[1]) if transpose else (x[1], x[0])
    if not dims_match(inner, y[0]):
        what = "X.shape[0]" if transpose else "X.shape[1]"
        ctx.fail(f"{what} must equal Y.shape[0], but got X.shape={shape_str(x)} and "
                 f"Y.shape={shape_str(y)} (transpose_x={transpose})")
    x_dtype, y_dtype = ctx.input_dtype("X"), ctx.input_dtype("Y")
    ctx.enforce(x_dtype == y_dtype,
                lambda: f"X and Y must have the same dtype, got X {x_dtype} and Y {y_dtype}")
    ctx.set_output("Out", (outer, y[1]), x_dtype)


def sparse_dot_kernel(attrs, x: CSRTensor, y):
    return csr_t_dot(x, y) if attrs["transpose_x"] else csr_dot(x, y)


for _y_stype in (STYPE_DENSE, STYPE_SELECTED_ROWS):
    sparse_dot.kernel(storage=[STYPE_CSR, _y_stype], dtypes=FLOATS)(sparse_dot_kernel)


@sparse_dot.grad_maker
def _(g):
    if not g.input_grad("Y"):
        return []
    return [g.grad_op("sparse_dot",
                      inputs={"X": g.input("X"), "Y": g.output_grad("Out")},
                      outputs={"Out": g.input_grad("Y")},
                      attrs={"transpose_x": not g.attr("transpose_x")})]
