"""read_from_array: Paddle's op type for what paddle-ir calls array_read.

    Out = read_from_array(X, I)     element I of the tensor array X, with its LoD

A Paddle 1.x program names the op `read_from_array` (Paddle's
controlflow/tensor_array_read_write_op.cc); its slots (X, I -> Out) are
array_read's, so the type shares array_read's rules, kernel and gradient
(ops/controlflow/tensor_array.py). One difference is deliberate: Paddle leaves
Out untouched when I is past the end of the array; here that is an error naming
the element, as for array_read, because the stale Out it would leave is a silent
wrong answer.
"""

from __future__ import annotations

from paddle_ir.ops.controlflow.tensor_array import array_read, read_element
from paddle_ir.ops.registry import CONTROL_DTYPES, register_op

read_from_array = register_op(
    "read_from_array",
    inputs=list(array_read.inputs),
    outputs=list(array_read.outputs),
    key_inputs=[],
    doc=__doc__,
)
read_from_array.infer_shape(array_read.infer_shape_fn)


@read_from_array.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def read_from_array_kernel(attrs, x, i):
    return read_element(x, i, "read_from_array")


# The gradient is array_read's: an array holding dOut at I (Paddle makes it with a
# write_to_array op; the values are the same).
read_from_array.grad_maker(array_read.grad_maker_fn)
