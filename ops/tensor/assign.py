"""assign: Out = X, a copy of a tensor (with its LoD) or of a tensor array.

Control-flow layers write a branch's or a loop step's result into a variable
of the enclosing block with it. Gradient: dX = dOut (another assign).
"""

from __future__ import annotations

from paddle_ir.core.kinds import STYPE_TENSOR_ARRAY
from paddle_ir.ops.context import LOD_TENSOR, LOD_TENSOR_ARRAY
from paddle_ir.ops.registry import ALL_DTYPES, In, Out, register_op

assign = register_op(
    "assign",
    inputs=[In("X", "a tensor or a tensor array")],
    outputs=[Out("Out", "the same value")],
    doc=__doc__,
)


@assign.infer_var_type
def _(ctx):
    array = ctx.input_var_type("X") == LOD_TENSOR_ARRAY
    ctx.set_output_type("Out", LOD_TENSOR_ARRAY if array else LOD_TENSOR)


@assign.infer_shape
def _(ctx):
    info = ctx.var_info(ctx.input_names("X")[0])
    if info.shape is not None:
        ctx.set_output("Out", info.shape, info.dtype)
    ctx.set_output_lod_level("Out", info.lod_level)
    if info.var_type == LOD_TENSOR:
        ctx.share_lod("X", "Out")


@assign.kernel(dtypes=ALL_DTYPES)
def assign_dense(attrs, x):
    return x.copy()


# Arrays are never modified in place, so the copy may share the elements.
@assign.kernel(storage=[STYPE_TENSOR_ARRAY], dtypes=ALL_DTYPES)
def assign_array(attrs, x):
    return x


@assign.grad_maker
def _(g):
    return [g.grad_op("assign", inputs={"X": g.output_grad("Out")},
                      outputs={"Out": g.input_grad("X")})]
