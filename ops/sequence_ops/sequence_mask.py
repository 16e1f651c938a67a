"""sequence_mask: Y[..., j] = (j < X[...]) for lengths X, as dtype `out_dtype`.

X holds integer lengths of any shape; Y has X's shape plus a last dim of
maxlen: the attribute `maxlen`, else the value of MaxLenTensor, else (-1)
max(X) at run time. Paddle's example:

    X = [3, 1, 1, 0], maxlen = 4
    -> Y = [[1, 1, 1, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]]

Y has no LoD and no gradient (its input is integral).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import DataType, to_numpy_dtype
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.registry import INTS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lod_error

sequence_mask = register_op(
    "sequence_mask",
    inputs=[In("X", "integer lengths, any shape"),
            In("MaxLenTensor", "a 1-element int tensor giving maxlen at run time",
               dispensable=True)],
    outputs=[Out("Y", "X.shape + [maxlen], 1 where the step is inside the length")],
    attrs=[Attr("maxlen", "int", -1, "the mask length; -1: max(X) (or MaxLenTensor)"),
           Attr("out_dtype", "int", DataType.INT64, "the DataType of Y")],
    doc=__doc__,
)


@sequence_mask.infer_shape
def _(ctx):
    ctx.enforce(ctx.input_dtype("X") in INTS,
                lambda: f"sequence_mask requires integer lengths X (int32 or int64), got "
                f"{ctx.input_dtype('X')}")
    maxlen = ctx.attr("maxlen")
    ctx.enforce(maxlen == -1 or maxlen > 0, lambda: f"maxlen must be -1 or positive, got {maxlen}")
    if ctx.has_input("MaxLenTensor"):
        maxlen = -1  # known when the program runs
    ctx.set_output("Y", tuple(ctx.input_shape("X")) + (maxlen,),
                   to_numpy_dtype(ctx.attr("out_dtype")))
    ctx.set_output_lod_level("Y", 0)


@sequence_mask.kernel(dtypes=INTS)
def sequence_mask_kernel(attrs, x: np.ndarray, maxlen_tensor):
    maxlen = attrs["maxlen"]
    if maxlen_tensor is not None:
        if maxlen_tensor.size != 1:
            raise lod_error("sequence_mask", f"MaxLenTensor must hold one value, got shape "
                                             f"{list(maxlen_tensor.shape)}")
        maxlen = int(maxlen_tensor.reshape(-1)[0])
    if maxlen < 0:
        maxlen = int(x.max()) if x.size else 0
    check_allocation("sequence_mask", (*x.shape, maxlen), to_numpy_dtype(attrs["out_dtype"]),
                     "maxlen (the attribute, MaxLenTensor or the largest length in X)")
    steps = np.arange(maxlen, dtype=np.int64)
    return (steps < x[..., None]).astype(to_numpy_dtype(attrs["out_dtype"]))
