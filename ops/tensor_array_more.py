"""tensor_array_to_tensor (+ _grad) and load.

    tensor_array_to_tensor  Out = the array's elements concatenated (or stacked, use_stack)
                            along `axis`; OutIndex = each element's size along axis (int32).
                            dX = dOut split back into an array of those sizes.
    load                    Out = the LoDTensor stored in `file_path` (Paddle's tensor stream
                            layout, core/tensor_io.py); load_as_fp16 converts to float16
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.tensor_array import LoDTensorArray
from paddle_ir.core.tensor_io import read_lod_tensor
from paddle_ir.ops.context import LOD_TENSOR, LOD_TENSOR_ARRAY
from paddle_ir.ops.registry import CONTROL_DTYPES, Attr, In, Out, register_op

_ATTRS = [Attr("axis", "int", 1, "the axis to join along"),
          Attr("use_stack", "bool", False, "stack (a new axis) instead of concatenating")]

tensor_array_to_tensor = register_op(
    "tensor_array_to_tensor",
    inputs=[In("X", "a tensor array")],
    outputs=[Out("Out", "the joined tensor"), Out("OutIndex", "int32 sizes along axis")],
    attrs=_ATTRS,
    key_inputs=[],
    doc=__doc__,
)


@tensor_array_to_tensor.infer_var_type
def _(ctx):
    ctx.enforce(ctx.input_var_type("X") == LOD_TENSOR_ARRAY, "X must be a tensor array")
    ctx.set_output_type("Out", LOD_TENSOR)
    ctx.set_output_type("OutIndex", LOD_TENSOR)


@tensor_array_to_tensor.infer_shape
def _(ctx):
    info = ctx.var_info(ctx.input_names("X")[0])
    axis, stack = ctx.attr("axis"), ctx.attr("use_stack")
    if info.shape is not None and len(info.shape):
        shape = list(info.shape)
        rank = len(shape) + (1 if stack else 0)
        ctx.enforce(-rank <= axis < rank, f"axis {axis} is out of range for rank {rank}")
        a = axis % rank
        if stack:
            shape.insert(a, -1)
        else:
            shape[a] = -1
        ctx.set_output("Out", shape, info.dtype)
    elif info.dtype is not None:
        ctx.set_output_dtype("Out", info.dtype)
    ctx.set_output("OutIndex", (-1,), np.int32)


def _elements(x: LoDTensorArray) -> list[np.ndarray]:
    items = list(x)
    if not items or any(v is None for v in items):
        raise KernelError("tensor_array_to_tensor: the array is empty or has unwritten "
                          "elements")
    return [v.numpy() if isinstance(v, LoDTensor) else np.asarray(v) for v in items]


@tensor_array_to_tensor.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def tensor_array_to_tensor_kernel(attrs, x):
    arrays = _elements(x)
    axis = attrs["axis"]
    if attrs["use_stack"]:
        out = np.stack(arrays, axis=axis)
        sizes = np.ones(len(arrays), dtype=np.int32)
    else:
        out = np.concatenate(arrays, axis=axis)
        sizes = np.asarray([a.shape[axis] for a in arrays], dtype=np.int32)
    return LoDTensor.unchecked(out), LoDTensor.unchecked(sizes)


@tensor_array_to_tensor.grad_maker
def _(g):
    return [g.grad_op("tensor_array_to_tensor_grad",
                      inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"axis": g.attr("axis"), "use_stack": g.attr("use_stack")})]


tensor_array_to_tensor_grad = register_op(
    "tensor_array_to_tensor_grad",
    inputs=[In("X"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=[],
    doc="dX = dOut split back into an array with the elements' sizes along axis.",
)


@tensor_array_to_tensor_grad.infer_var_type
def _(ctx):
    ctx.set_output_type("X@GRAD", LOD_TENSOR_ARRAY)


@tensor_array_to_tensor_grad.infer_shape
def _(ctx):
    info = ctx.var_info(ctx.input_names("X")[0])
    if info.shape is not None:
        ctx.set_output("X@GRAD", info.shape, ctx.input_dtype("Out@GRAD"))


@tensor_array_to_tensor_grad.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def tensor_array_to_tensor_grad_kernel(attrs, x, dout):
    arrays = _elements(x)
    axis, d = attrs["axis"], dout.numpy()
    if attrs["use_stack"]:
        pieces = [np.take(d, k, axis=axis) for k in range(len(arrays))]
    else:
        cuts = np.cumsum([a.shape[axis] for a in arrays])[:-1]
        pieces = np.split(d, cuts, axis=axis)
    return LoDTensorArray([LoDTensor.unchecked(np.ascontiguousarray(p)) for p in pieces], d.dtype)


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
