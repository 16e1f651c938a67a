"""retain (+ retain_grad): keep the rows of a SELECTED_ROWS X listed in Indices (MXNet's
sparse.retain).

    Out[r] = X[r] if r in Indices else 0          (Out: SELECTED_ROWS, X's shape)

Out stores the rows of X that Indices lists, in X's order (a repeated row of X
stays repeated: its values still add up). Indices is an int32/int64 tensor of
row numbers in [0, X.height), any shape, order and repetition.

Gradient: dX[r] = dOut[r] for r in Indices, 0 elsewhere: a SELECTED_ROWS with
the sorted unique Indices as rows.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import InvalidSelectedRowsError
from paddle_ir.core.kinds import STYPE_SELECTED_ROWS, var_type_name
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.context import SELECTED_ROWS
from paddle_ir.ops.registry import ALL_DTYPES, In, Out, register_op

INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))

retain = register_op(
    "retain",
    inputs=[In("X", "a SELECTED_ROWS tensor"), In("Indices", "the row numbers to keep")],
    outputs=[Out("Out", "a SELECTED_ROWS with X's shape holding only the listed rows")],
    doc=__doc__,
)


@retain.infer_var_type
def _(ctx):
    x_type = ctx.input_var_type("X")
    if x_type != SELECTED_ROWS:
        ctx.fail_var_type(f"retain requires X to be SELECTED_ROWS, got {var_type_name(x_type)}",
                          hint="cast_storage(x, 'selected_rows') first")
    ctx.set_output_type("Out", SELECTED_ROWS)


def _check_indices(ctx):
    dtype = ctx.input_dtype("Indices")
    ctx.enforce(dtype in INDEX_DTYPES, lambda: f"Indices must be int32 or int64, got {dtype}")


@retain.infer_shape
def _(ctx):
    _check_indices(ctx)
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))


def _keep(indices: np.ndarray, height: int) -> np.ndarray:
    keep = indices.reshape(-1).astype(np.int64, copy=False)
    if keep.size and (keep.min() < 0 or keep.max() >= height):
        bad = int(keep.min()) if keep.min() < 0 else int(keep.max())
        raise InvalidSelectedRowsError(f"Indices holds row {bad}, out of range [0, {height})")
    return keep


@retain.kernel(storage=[STYPE_SELECTED_ROWS], dtypes=ALL_DTYPES)
def retain_selected_rows(attrs, x: SelectedRows, indices: np.ndarray):
    return x.retain(_keep(indices, x.height))


@retain.grad_maker
def _(g):
    return [g.grad_op("retain_grad",
                      inputs={"Indices": g.input("Indices"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


retain_grad = register_op(
    "retain_grad",
    inputs=[In("Indices"), In("Out@GRAD", "dense or SELECTED_ROWS")],
    outputs=[Out("X@GRAD", "SELECTED_ROWS: dOut's rows listed in Indices")],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut on the rows listed in Indices, zero elsewhere (a SELECTED_ROWS).",
)


@retain_grad.infer_var_type
def _(ctx):
    ctx.set_output_type("X@GRAD", SELECTED_ROWS)


@retain_grad.infer_shape
def _(ctx):
    _check_indices(ctx)
    ctx.set_output("X@GRAD", ctx.input_shape("Out@GRAD"), ctx.input_dtype("Out@GRAD"))


@retain_grad.kernel(dtypes=ALL_DTYPES)
def retain_grad_dense(attrs, indices, dout: np.ndarray):
    rows = np.unique(_keep(indices, dout.shape[0]))
    return SelectedRows.unchecked(rows, dout[rows], dout.shape[0])


@retain_grad.kernel(storage=[STYPE_SELECTED_ROWS], dtypes=ALL_DTYPES)
def retain_grad_selected_rows(attrs, indices, dout: SelectedRows):
    return dout.retain(_keep(indices, dout.height))
