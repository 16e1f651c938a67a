"""cast: Out = X converted to the element type `out_dtype` (a DataType number).

`in_dtype` must name X's own type (Paddle's cast layer records it). Casting
to an integer type truncates toward zero, and to bool tests for non-zero, as
numpy's astype does. Out has X's shape and LoD. The gradient is a cast back:
dX = cast(dOut, out_dtype -> in_dtype), so the grad maker emits a `cast` op.
A cast keeps zeros zero, so a SELECTED_ROWS X gives a SELECTED_ROWS Out
(duplicate rows summed before the cast).
bfloat16 (held as raw uint16 bits) and complex types are not castable here.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import DataType, dtype_name, from_numpy_dtype, to_numpy_dtype
from paddle_ir.ops.registry import Attr, In, Out, register_op
from paddle_ir.ops.storage import register_rowwise

CASTABLE = tuple(np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.int32,
                                        np.int64, np.float16, np.float32, np.float64))

cast = register_op(
    "cast",
    inputs=[In("X")],
    outputs=[Out("Out", "X's values as out_dtype, with X's shape and LoD")],
    attrs=[
        Attr("in_dtype", "int", DataType.FP32, "X's DataType"),
        Attr("out_dtype", "int", DataType.FP32, "the DataType to convert to"),
    ],
    doc=__doc__,
)


def _castable(ctx, attr: str) -> np.dtype:
    data_type = ctx.attr(attr)
    names = ", ".join(f"{DataType.Name(from_numpy_dtype(d))}={from_numpy_dtype(d)}"
                      for d in CASTABLE)
    ctx.enforce(data_type in [from_numpy_dtype(d) for d in CASTABLE],
                lambda: f"{attr} must be one of {names}, got {data_type}")
    return to_numpy_dtype(data_type)


@cast.infer_shape
def _(ctx):
    in_dtype, out_dtype = _castable(ctx, "in_dtype"), _castable(ctx, "out_dtype")
    x_dtype = ctx.input_dtype("X")
    ctx.enforce(x_dtype == in_dtype, lambda:
                f"in_dtype says X is {dtype_name(in_dtype)}, but X is {dtype_name(x_dtype)}",
                hint=lambda: f"set in_dtype={from_numpy_dtype(x_dtype)}")
    ctx.set_output("Out", ctx.input_shape("X"), out_dtype)
    ctx.share_lod("X", "Out")


@cast.kernel(dtypes=CASTABLE)
def cast_dense(attrs, x):
    return x.astype(to_numpy_dtype(attrs["out_dtype"]), copy=False)


register_rowwise(cast, cast_dense)


@cast.grad_maker
def _(g):
    return [g.grad_op("cast", inputs={"X": g.output_grad("Out")},
                      outputs={"Out": g.input_grad("X")},
                      attrs={"in_dtype": g.attr("out_dtype"), "out_dtype": g.attr("in_dtype")})]
