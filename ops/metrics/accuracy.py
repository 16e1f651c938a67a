"""accuracy: the fraction of rows whose label is among their top-k predictions.

Inputs are top_k's outputs for the predictions, Out [N, k] and Indices [N, k],
and the true classes, Label [N, 1]:

    Correct  = #rows i with Label[i] in Indices[i, :]     (int32, [1])
    Total    = N                                          (int32, [1])
    Accuracy = Correct / Total (0 when N = 0)             (float32, [1])

The outputs have shape [1], as in Fluid 1.x. The kernel is selected by
Out's dtype, as in Paddle. accuracy has no gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.registry import FLOATS, In, Out, register_op

accuracy = register_op(
    "accuracy",
    inputs=[In("Out", "top_k values, [N, k]"), In("Indices", "top_k indices, int [N, k]"),
            In("Label", "the true classes, int [N, 1]")],
    outputs=[Out("Accuracy", "float32, [1]"), Out("Correct", "int32, [1]", dispensable=True),
             Out("Total", "int32, [1]", dispensable=True)],
    doc=__doc__,
)


@accuracy.infer_shape
def _(ctx):
    out, indices, label = (ctx.input_shape(s) for s in ("Out", "Indices", "Label"))
    ctx.enforce(len(indices) == 2, lambda: f"Indices must be [N, k], got {shape_str(indices)}")
    ctx.enforce(len(out) == 2 and all(dims_match(a, b) for a, b in zip(out, indices,
                                                                       strict=True)),
                lambda: f"Out and Indices must have one shape [N, k], got Out {shape_str(out)} and "
                f"Indices {shape_str(indices)}")
    ctx.enforce(len(label) == 2 and dims_match(label[1], 1) and dims_match(label[0], indices[0]),
                lambda: f"Label must be [N, 1] with N = Indices.shape[0] = {indices[0]}, got "
                f"{shape_str(label)}")
    for slot in ("Indices", "Label"):
        dtype = ctx.input_dtype(slot)
        ctx.enforce(dtype.kind in "iu", lambda: f"{slot} must hold integers, got {dtype}")
    ctx.set_output("Accuracy", (1,), np.float32)
    ctx.set_output("Correct", (1,), np.int32)
    ctx.set_output("Total", (1,), np.int32)


@accuracy.kernel(dtypes=FLOATS)
def accuracy_dense(attrs, out, indices, label):
    total = indices.shape[0]
    correct = int((indices == label).any(axis=1).sum())
    ratio = correct / total if total else 0.0
    return (np.array([ratio], dtype=np.float32), np.array([correct], dtype=np.int32),
            np.array([total], dtype=np.int32))
