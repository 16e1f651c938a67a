"""write_to_array: Paddle's op type for what paddle-ir calls array_write.

    Out = write_to_array(X, I)          Out with element I set to X (grown as needed)
    Out = write_to_array(X, I, Array)   the same, extending Array (paddle-ir's form)

Paddle (controlflow/tensor_array_read_write_op.cc) has no Array input: the op
updates the array already held by Out in place, starting from an empty one when
Out holds nothing yet (Paddle 1.x's layers.create_array makes the variable
without an op). A program read from a Paddle file therefore binds only X and I,
and the op must see Out's value from before it ran. That is why its kernel is a
control kernel: it reads Out through the frame as a scope, which finds the value an
earlier op of the block wrote, or else the one an enclosing block (a loop's parent)
holds. (Out is not declared a may-skip output: an external read with no value would
make every run of the plan bind afresh instead of taking the cached path.) It then
does what array_write does: a new array sharing the untouched elements, so earlier
steps' reads survive for the backward pass. A program built here (array_write
renamed) may bind Array as well; Array then wins, as in array_write.

Rules and gradient are array_write's (ops/controlflow/tensor_array.py):
dX = dOut[I]. Paddle's own grad op is a read_from_array of dOut; the values are the same.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.tensor_array import LoDTensorArray
from paddle_ir.ops.controlflow.tensor_array import array_write, index_of
from paddle_ir.ops.registry import register_op

write_to_array = register_op(
    "write_to_array",
    inputs=list(array_write.inputs),
    outputs=list(array_write.outputs),
    key_inputs=[],
    doc=__doc__,
)
write_to_array.infer_var_type(array_write.infer_var_type_fn)
write_to_array.infer_shape(array_write.infer_shape_fn)
write_to_array.grad_maker(array_write.grad_maker_fn)


# A control kernel has no element type: with no key inputs the executor asks for float32.
@write_to_array.kernel(storage=[], dtypes=[np.float32], control=True)
def write_to_array_kernel(ctx, attrs, x, i, array):
    x_name = ctx.input_names("X")[0]
    out_name = ctx.output_names("Out")[0]
    value = ctx.value(x_name)  # with its LoD (the positional x is the bare ndarray)
    if value is None:
        raise KernelError(f"write_to_array: X ({x_name!r}) holds no value")
    base = ctx.value(ctx.input_names("Array")[0]) if ctx.input_names("Array") else None
    if base is None:
        base = ctx.value(out_name)
    if base is None:
        base = LoDTensorArray((), value.dtype)
    if not isinstance(base, LoDTensorArray):
        raise KernelError(f"write_to_array: Out ({out_name!r}) holds a "
                          f"{type(base).__name__}, not a tensor array",
                          hint="write into a variable made by layers.create_array")
    if len(base) and base.dtype is not None and np.dtype(base.dtype) != value.dtype:
        raise KernelError(f"write_to_array: X ({x_name!r}) has dtype {value.dtype}, but the "
                          f"array {out_name!r} holds {np.dtype(base.dtype)}",
                          hint="insert a cast op")
    ctx.scope.var(out_name).value = base.written(index_of(i, "write_to_array"), value)
