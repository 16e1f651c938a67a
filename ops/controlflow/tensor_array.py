"""Tensor arrays: create_array, array_write, array_read, array_length (+ grads).

    Out = create_array()                      an empty array of `dtype`
    Out = array_write(X, I, Array)            Array with element I set to X (grown as needed)
    Out = array_read(X, I)                    element I of the array X
    Out = array_length(X)                     int64 [1]: the number of elements

Arrays carry loop values from step to step: a loop step reads element i and
writes element i + 1. Paddle's write_to_array updates its output in place;
here `array_write` takes the array it extends as the input `Array` (absent:
start from an empty array) and returns a new array sharing the untouched
elements, so kernels stay pure and every step's reads survive for the
backward pass. Out is usually the same variable as Array.

Gradients are arrays too, with None for elements no gradient reached (zeros):

    array_write: dX = dOut[I] (zeros when None), dArray = dOut with element I cleared
    array_read:  dX = an array as long as X, holding dOut at I and None elsewhere

and `sum` adds gradient arrays element by element.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import DataType, to_numpy_dtype
from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.core.tensor_array import LoDTensorArray
from paddle_ir.ops.context import LOD_TENSOR_ARRAY
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
                    f"X has dtype {x.dtype}, but the array holds {array.dtype}",
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


@array_read.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def array_read_kernel(attrs, x, i):
    k = index_of(i, "array_read")
    if k >= len(x) or x[k] is None:
        raise KernelError(f"array_read: element {k} of the array has not been written "
                          f"(the array holds {len(x)} elements)")
    return x[k]


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
