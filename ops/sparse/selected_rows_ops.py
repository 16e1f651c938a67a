"""merge_selected_rows and get_tensor_from_selected_rows: SelectedRows plumbing.

    merge_selected_rows            Out = X with sorted unique rows, duplicates' values summed
    get_tensor_from_selected_rows  Out = X's value tensor, [len(rows)] + dims[1:]

Neither has a gradient (Paddle registers none): they sit after backward, in
gradient clipping and the optimizers' bookkeeping.
"""

from __future__ import annotations

from paddle_ir.core.kinds import STYPE_SELECTED_ROWS as STYPE_SR
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.context import LOD_TENSOR, SELECTED_ROWS
from paddle_ir.ops.registry import NUMERIC, In, Out, register_op


def _require_sr(ctx, op: str) -> None:
    ctx.enforce(ctx.input_var_type("X") == SELECTED_ROWS,
                "X must be SELECTED_ROWS, got a LOD_TENSOR", hint=
                lambda: f"{op} reads a sparse gradient")


merge_selected_rows = register_op(
    "merge_selected_rows",
    inputs=[In("X", "a SelectedRows")],
    outputs=[Out("Out", "a SelectedRows with unique sorted rows")],
    doc=__doc__,
)


@merge_selected_rows.infer_var_type
def _(ctx):
    _require_sr(ctx, "merge_selected_rows")
    ctx.set_output_type("Out", SELECTED_ROWS)


@merge_selected_rows.infer_shape
def _(ctx):
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))


@merge_selected_rows.kernel(storage=[STYPE_SR], dtypes=NUMERIC)
def merge_selected_rows_kernel(attrs, x: SelectedRows) -> SelectedRows:
    return x.merge()


get_tensor_from_selected_rows = register_op(
    "get_tensor_from_selected_rows",
    inputs=[In("X", "a SelectedRows")],
    outputs=[Out("Out", "its value tensor, [len(rows), ...]")],
    doc=__doc__,
)


@get_tensor_from_selected_rows.infer_var_type
def _(ctx):
    _require_sr(ctx, "get_tensor_from_selected_rows")
    ctx.set_output_type("Out", LOD_TENSOR)


@get_tensor_from_selected_rows.infer_shape
def _(ctx):
    ctx.set_output("Out", (-1,) + tuple(ctx.input_shape("X")[1:]), ctx.input_dtype("X"))


@get_tensor_from_selected_rows.kernel(storage=[STYPE_SR], dtypes=NUMERIC)
def get_tensor_from_selected_rows_kernel(attrs, x: SelectedRows):
    return x.value.copy()
