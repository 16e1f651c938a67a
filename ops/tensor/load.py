"""load: Out = the LoDTensor stored in `file_path` (Paddle's tensor stream layout,
core/tensor_io.py); load_as_fp16 converts to float16.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.tensor_io import read_lod_tensor
from paddle_ir.ops.registry import CONTROL_DTYPES, Attr, Out, register_op

load = register_op(
    "load",
    outputs=[Out("Out", "the tensor read from file_path")],
    attrs=[Attr("file_path", "string", "", "a file written by save (one LoDTensor record)"),
           Attr("load_as_fp16", "bool", False, "convert to float16")],
    key_inputs=[],
    doc=__doc__,
)


def _read(attrs) -> LoDTensor:
    path = attrs["file_path"]
    try:
        with open(path, "rb") as stream:
            tensor = read_lod_tensor(stream, f"load {path}")
    except FileNotFoundError as e:
        raise KernelError(f"load: no file {path!r}") from e
    if attrs["load_as_fp16"]:
        return LoDTensor.unchecked(tensor.numpy().astype(np.float16), tensor.offsets)
    return tensor


@load.infer_shape
def _(ctx):
    ctx.enforce(bool(ctx.attr("file_path")), "attr file_path must name a file")
    if ctx.is_runtime:  # what the file holds decides Out's shape, dtype and LoD
        tensor = _read({"file_path": ctx.attr("file_path"),
                        "load_as_fp16": ctx.attr("load_as_fp16")})
        ctx.set_output("Out", tensor.shape, tensor.dtype)
        ctx.set_output_lod_level("Out", tensor.lod_level)


@load.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def load_kernel(attrs):
    return _read(attrs)


load.grad_maker(lambda g: [])
