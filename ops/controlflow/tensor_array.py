"""Tensor arrays: create_array, array_write, array_read, array_length,
tensor_array_to_tensor (+ grads).

    Out = create_array()                      an empty array of `dtype`
    Out = array_write(X, I, Array)            Array with element I set to X (grown as needed)
    Out = array_read(X, I)                    element I of the array X
    Out = array_length(X)                     int64 [1]: the number of elements
    Out, OutIndex = tensor_array_to_tensor(X) the elements concatenated (or stacked,
                                              use_stack) along `axis`; OutIndex = each
                                              element's size along axis (int32)

Arrays carry loop values from step to step: a loop step reads element i and
writes element i + 1. Paddle's write_to_array updates its output in place;
here `array_write` takes the array it extends as the input `Array` (absent:
start from an empty array) and returns a new array sharing the untouched
elements, so kernels stay pure and every step's reads survive for the
backward pass. Out is usually the same variable as Array.

Gradients are arrays too, with None for elements no gradient reached (zeros):

    array_write: dX = dOut[I] (zeros when None), dArray = dOut with element I cleared
    array_read:  dX = an array as long as X, holding dOut at I and None elsewhere

    tensor_array_to_tensor: dX = dOut split back into an array of the elements' sizes

and `sum` adds gradient arrays element by element.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import DataType, to_numpy_dtype
from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.core.tensor_array import LoDTensorArray
from paddle_ir.ops.context import LOD_TENSOR, LOD_TENSOR_ARRAY
from paddle_ir.ops.registry import CONTROL_DTYPES, Attr, In, Out, register_op


def index_of(i, op_type: str) -> int:
    """The int in a one-element index tensor (a LoDTensor or an ndarray)."""
    arr = np.asarray(i.numpy() if isinstance(i, LoDTensor) else i)
    if arr.size != 1:
        raise KernelError(f"{op_type}: the index I must hold one element, got shape "
                          f"{list(arr.shape)}")
    k = int(arr.reshape(()))
    if k < 0:
        raise KernelError(f"{op_type}: the index I must be >= 0, got {k}")
    return k


# -- values: zeros and accumulation, shared by sum and while_grad ---------------------------


def zeros_like(value):
    """A zero gradient for `value`: zeros with its LoD, or an array of Nones."""
    if isinstance(value, LoDTensorArray):
        return LoDTensorArray([None] * len(value), value.dtype)
    if isinstance(value, LoDTensor):
        return LoDTensor.unchecked(np.zeros_like(value.numpy()), value.offsets)
    if isinstance(value, SelectedRows):
        return SelectedRows.unchecked(np.zeros(0, np.int64),
                                  np.zeros((0,) + value.value.shape[1:], value.value.dtype),
                                  value.height)
    return np.zeros_like(value)


def accumulate(a, b):
    """a + b for gradients: tensors, SelectedRows (rows concatenated) or arrays (None = 0)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, LoDTensorArray):
        n = max(len(a), len(b))
        items = [accumulate(a[k] if k < len(a) else None, b[k] if k < len(b) else None)
                 for k in range(n)]
        return LoDTensorArray(items, a.dtype)
    if isinstance(a, SelectedRows) and isinstance(b, SelectedRows):
        return SelectedRows.unchecked(np.concatenate([a.rows, b.rows]),
                                  np.concatenate([a.value, b.value]), a.height)
    if isinstance(a, SelectedRows):
        a, b = b, a
    dense_b = b.to_dense() if isinstance(b, SelectedRows) else np.asarray(b)
    if isinstance(a, LoDTensor):
        return LoDTensor.unchecked(a.numpy() + dense_b, a.offsets)
    return np.asarray(a) + dense_b


# -- create_array ---------------------------------------------------------------------------

create_array = register_op(
    "create_array",
    outputs=[Out("Out", "an empty tensor array")],
    attrs=[Attr("dtype", "int", DataType.FP32, "the DataType of the elements")],
    key_inputs=[],
    doc="Out = an empty tensor array whose elements will have `dtype`.",
)


@create_array.infer_var_type
def _(ctx):
    ctx.set_output_type("Out", LOD_TENSOR_ARRAY)


@create_array.infer_shape
def _(ctx):
    if not ctx.is_runtime:  # the elements' dims are declared by the first array_write
        ctx.set_output_dtype("Out", to_numpy_dtype(ctx.attr("dtype")))


@create_array.kernel(storage=[], dtypes=CONTROL_DTYPES)
def create_array_kernel(attrs):
    return LoDTensorArray((), to_numpy_dtype(attrs["dtype"]))


create_array.grad_maker(lambda g: [])


# -- array_write ----------------------------------------------------------------------------

array_write = register_op(
    "array_write",
    inputs=[In("X", "the tensor to store"), In("I", "one-element int index"),
            In("Array", "the array to extend (absent: an empty one)", dispensable=True)],
    outputs=[Out("Out", "the array with element I set to X")],
    key_inputs=[],
    doc=__doc__,
)


def _declare_elements(ctx, slot: str, info) -> None:
    """An array's declared dims are its elements' with an unknown first (row) dim."""
    if info.shape is not None:
        shape = tuple(info.shape)
        ctx.set_output(slot, ((-1,) + shape[1:]) if shape else shape, info.dtype)
    ctx.set_output_lod_level(slot, info.lod_level)


@array_write.infer_var_type
def _(ctx):
    ctx.set_output_type("Out", LOD_TENSOR_ARRAY)


@array_write.infer_shape
def _(ctx):
    x = ctx.var_info(ctx.input_names("X")[0])
    if ctx.has_input("Array"):
        array = ctx.var_info(ctx.input_names("Array")[0])
        ctx.enforce(array.var_type == LOD_TENSOR_ARRAY,
                    "Array must be a tensor array (layers.create_array)")
        ctx.enforce(array.dtype is None or x.dtype is None or array.dtype == x.dtype,
                    lambda: f"X has dtype {x.dtype}, but the array holds {array.dtype}",
                    hint="insert a cast op")
    _declare_elements(ctx, "Out", x)


@array_write.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def array_write_kernel(attrs, x, i, array):
    base = array if array is not None else LoDTensorArray((), x.dtype)
    return base.written(index_of(i, "array_write"), x)


@array_write.grad_maker
def _(g):
    return [g.grad_op("array_write_grad",
                      inputs={"X": g.input("X"), "I": g.input("I"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X"),
                               "Array@GRAD": g.input_grad("Array")})]


array_write_grad = register_op(
    "array_write_grad",
    inputs=[In("X"), In("I"), In("Out@GRAD", "the gradient array")],
    outputs=[Out("X@GRAD", "element I of Out@GRAD (zeros when it holds none)",
                 dispensable=True),
             Out("Array@GRAD", "Out@GRAD without element I", dispensable=True)],
    key_inputs=[],
    doc="The gradient of array_write (see its module doc).",
)


@array_write_grad.infer_var_type
def _(ctx):
    ctx.set_output_type("X@GRAD", ctx.input_var_type("X"))
    ctx.set_output_type("Array@GRAD", LOD_TENSOR_ARRAY)


@array_write_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")
    _declare_elements(ctx, "Array@GRAD", ctx.var_info(ctx.input_names("X")[0]))


@array_write_grad.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def array_write_grad_kernel(attrs, x, i, dout):
    k = index_of(i, "array_write_grad")
    element = dout[k] if k < len(dout) else None
    dx = zeros_like(x) if element is None else element
    return dx, dout.written(k, None) if k < len(dout) else dout


# -- array_read -----------------------------------------------------------------------------

array_read = register_op(
    "array_read",
    inputs=[In("X", "a tensor array"), In("I", "one-element int index")],
    outputs=[Out("Out", "element I, with its LoD")],
    key_inputs=[],
    doc=__doc__,
)


@array_read.infer_shape
def _(ctx):
    array = ctx.var_info(ctx.input_names("X")[0])
    ctx.enforce(array.var_type == LOD_TENSOR_ARRAY,
                "X must be a tensor array (layers.create_array or array_write)")
    if array.shape is not None:
        ctx.set_output("Out", array.shape, array.dtype)
    elif array.dtype is not None:
        ctx.set_output_dtype("Out", array.dtype)
    ctx.set_output_lod_level("Out", array.lod_level)


def read_element(x: LoDTensorArray, i, op_type: str):
    """Element I of x, for array_read and Paddle's read_from_array."""
    k = index_of(i, op_type)
    if k >= len(x) or x[k] is None:
        raise KernelError(f"{op_type}: element {k} of the array has not been written "
                          f"(the array holds {len(x)} elements)")
    return x[k]


@array_read.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def array_read_kernel(attrs, x, i):
    return read_element(x, i, "array_read")


@array_read.grad_maker
def _(g):
    return [g.grad_op("array_read_grad",
                      inputs={"X": g.input("X"), "I": g.input("I"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


array_read_grad = register_op(
    "array_read_grad",
    inputs=[In("X"), In("I"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", "an array as long as X: Out@GRAD at I, None elsewhere")],
    key_inputs=[],
    doc="The gradient of array_read (see array_write's module doc).",
)


@array_read_grad.infer_var_type
def _(ctx):
    ctx.set_output_type("X@GRAD", LOD_TENSOR_ARRAY)


@array_read_grad.infer_shape
def _(ctx):
    _declare_elements(ctx, "X@GRAD", ctx.var_info(ctx.input_names("X")[0]))


@array_read_grad.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def array_read_grad_kernel(attrs, x, i, dout):
    k = index_of(i, "array_read_grad")
    return LoDTensorArray([None] * len(x), x.dtype).written(k, dout)


# -- array_length ---------------------------------------------------------------------------

array_length = register_op(
    "array_length",
    inputs=[In("X", "a tensor array")],
    outputs=[Out("Out", "int64 [1]: the number of elements")],
    key_inputs=[],
    doc="Out = len(X), as an int64 [1] tensor.",
)


@array_length.infer_shape
def _(ctx):
    ctx.set_output("Out", (1,), np.int64)


@array_length.kernel(storage=[], dtypes=CONTROL_DTYPES)
def array_length_kernel(attrs, x):
    return np.array([len(x)], dtype=np.int64)


array_length.grad_maker(lambda g: [])


# -- tensor_array_to_tensor -----------------------------------------------------------------

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
        ctx.enforce(-rank <= axis < rank, lambda: f"axis {axis} is out of range for rank {rank}")
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
