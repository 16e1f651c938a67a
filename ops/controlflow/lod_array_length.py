"""lod_array_length: Paddle's op type for what paddle-ir calls array_length.

    Out = lod_array_length(X)       int64 [1]: the number of elements of the array X

A Paddle 1.x program names the op `lod_array_length` (Paddle's
controlflow/lod_array_length_op.cc); its slots are array_length's, so it shares
array_length's rule and kernel (ops/controlflow/tensor_array.py). No gradient.
"""

from __future__ import annotations

from paddle_ir.ops.controlflow.tensor_array import array_length, array_length_kernel
from paddle_ir.ops.registry import CONTROL_DTYPES, register_op

lod_array_length = register_op(
    "lod_array_length",
    inputs=list(array_length.inputs),
    outputs=list(array_length.outputs),
    key_inputs=[],
    doc=__doc__,
)
lod_array_length.infer_shape(array_length.infer_shape_fn)
lod_array_length.kernel(storage=[], dtypes=CONTROL_DTYPES)(array_length_kernel)
lod_array_length.grad_maker(lambda g: [])
