"""dequantize_log: int8 codes of a log-quantized tensor back to float32 through a
table (Paddle's dequantize_log_op.cc):

    Out[i] = Dict[X[i]]            when X[i] >= 0
    Out[i] = -Dict[X[i] + 128]     when X[i] <  0

so an int8 code picks one of Dict's 128 magnitudes (codes 0..127 and -128..-1 share
them) and its sign. Paddle reads the table unchecked; here a Dict shorter than the
codes need is an error naming it. Out is float32 with X's shape and LoD. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.registry import In, Out, register_op

dequantize_log = register_op(
    "dequantize_log",
    inputs=[In("X", "int8 codes"), In("Dict", "float32 magnitudes, 128 of them")],
    outputs=[Out("Out", "float32, X's shape")],
    doc=__doc__,
)


@dequantize_log.infer_shape
def _(ctx):
    ctx.enforce(ctx.input_dtype("Dict") in (None, np.float32),
                lambda: f"Dict must be float32, got {ctx.input_dtype('Dict')}")
    ctx.set_output("Out", ctx.input_shape("X"), np.float32)
    ctx.share_lod("X", "Out")


@dequantize_log.kernel(dtypes=(np.int8,))
def dequantize_log_kernel(attrs, x, table):
    table = np.asarray(table).reshape(-1)
    codes = x.astype(np.int64)
    index = np.where(codes < 0, codes + 128, codes)
    if index.size and int(index.max()) >= table.size:
        raise KernelError(f"dequantize_log: X holds a code that needs Dict entry "
                          f"{int(index.max())}, but Dict has {table.size} entries",
                          hint="Dict is the 128-entry table of the log quantization")
    magnitude = table[index]
    return np.where(codes < 0, -magnitude, magnitude).astype(np.float32)


dequantize_log.grad_maker(lambda g: [])
