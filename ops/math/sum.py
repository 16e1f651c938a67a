"""sum: Out = X[0] + X[1] + ... over a duplicable X, dense or SelectedRows.

Storage follows the inputs, as MXNet's `add_n` does:

- every input a SelectedRows -> Out is a SelectedRows, merged (sorted unique
  rows, duplicate rows' values added), of the inputs' height;
- any input dense -> Out is dense, and the SelectedRows inputs are
  scatter-added into it (their rows merged first, so no row is added twice).

Var-type inference says the same at build time. The executor keys the kernel
on the whole X list (a duplicable key slot is `selected_rows` only when every
value in it is; docs/architecture.md), so the dense kernel also receives the
SelectedRows members of a mixed list. Out carries the first dense input's LoD.

Tensor arrays (gradients of loop values) add element by element, a None
element counting as zeros: `append_backward` accumulates array gradients with
`sum` as it does tensors.

Gradient: dX[i] = dOut for every i, one `scale` op per input (as in Paddle), so
a SelectedRows dOut stays sparse.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.kinds import STYPE_TENSOR_ARRAY
from paddle_ir.core.segments import merge_rows
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.context import LOD_TENSOR, LOD_TENSOR_ARRAY, SELECTED_ROWS, shape_str
from paddle_ir.ops.controlflow.tensor_array import accumulate
from paddle_ir.ops.registry import NUMERIC, In, Out, register_op

sum_op = register_op(
    "sum",
    inputs=[In("X", "the addends: dense tensors and/or SelectedRows of one shape",
               duplicable=True)],
    outputs=[Out("Out", "their sum: a merged SelectedRows if every X is one, else dense")],
    doc=__doc__,
)


@sum_op.infer_var_type
def _(ctx):
    types = ctx.input_var_types("X")
    all_sparse = bool(types) and all(t == SELECTED_ROWS for t in types)
    if types and all(t == LOD_TENSOR_ARRAY for t in types):
        ctx.set_output_type("Out", LOD_TENSOR_ARRAY)
        return
    ctx.set_output_type("Out", SELECTED_ROWS if all_sparse else LOD_TENSOR)


@sum_op.infer_shape
def _(ctx):
    shapes = ctx.input_shapes("X")
    ctx.enforce(bool(shapes), "sum requires at least one input X, got none")
    if all(t == LOD_TENSOR_ARRAY for t in ctx.input_var_types("X")):
        first = ctx.var_info(ctx.input_names("X")[0])
        if first.shape is not None:
            ctx.set_output("Out", first.shape, first.dtype)
        ctx.set_output_lod_level("Out", first.lod_level)
        return
    dtypes = [ctx.input_dtype("X", i) for i in range(len(shapes))]
    ctx.enforce(all(d == dtypes[0] for d in dtypes),
                lambda: f"every X must have the same dtype, got {[str(d) for d in dtypes]}",
                hint="insert a cast op")
    out = list(shapes[0])
    for i, shape in enumerate(shapes[1:], start=1):
        ctx.enforce(len(shape) == len(out), lambda:
                    f"every X must have the same shape, got X[0] {shape_str(shapes[0])} and "
                    f"X[{i}] {shape_str(shape)}")
        for k, d in enumerate(shape):
            if out[k] < 0:
                out[k] = d
            elif d >= 0 and d != out[k]:
                ctx.fail(f"every X must have the same shape, got X[0] {shape_str(shapes[0])} "
                         f"and X[{i}] {shape_str(shape)} (dim {k} differs)")
    ctx.set_output("Out", out, dtypes[0])
    types = ctx.input_var_types("X")
    first_dense = next((i for i, t in enumerate(types) if t == LOD_TENSOR), None)
    if first_dense is not None:
        ctx.share_lod("X", "Out", i=first_dense)


def _merged(parts: list[SelectedRows]) -> tuple[np.ndarray, np.ndarray]:
    """All rows and values of `parts`, merged: sorted unique rows, summed values."""
    rows = np.concatenate([p.rows for p in parts])
    values = np.concatenate([p.value for p in parts])
    return merge_rows(rows, values)


@sum_op.kernel(dtypes=NUMERIC)
def sum_dense(attrs, xs):
    dense = [x for x in xs if x.__class__ is not SelectedRows]
    sparse = [x for x in xs if x.__class__ is SelectedRows]
    out = dense[0].copy()
    for x in dense[1:]:
        out += x
    if sparse:
        rows, values = _merged(sparse)
        out[rows] += values  # rows are unique after merging: no lost updates
    return out


@sum_op.kernel(storage=["selected_rows"], dtypes=NUMERIC)
def sum_selected_rows(attrs, xs):
    rows, values = _merged(xs)
    return SelectedRows.unchecked(rows, values, xs[0].height)


@sum_op.kernel(storage=[STYPE_TENSOR_ARRAY], dtypes=NUMERIC)
def sum_arrays(attrs, xs):
    out = xs[0]
    for x in xs[1:]:
        out = accumulate(out, x)
    return out


@sum_op.grad_maker
def _(g):
    out_grad = g.output_grad("Out")
    return [g.grad_op("scale", inputs={"X": out_grad}, outputs={"Out": [name]},
                      attrs={"scale": 1.0, "bias": 0.0})
            for name in g.input_grad("X") if name]
