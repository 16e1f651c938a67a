"""Fluid 1.7's tensor layers: making (range, linspace, diag, eye, ones_like, create_*),
inspecting (shape, rank, size, isfinite, has_inf, has_nan) and rearranging (cumsum, argsort,
unique, reverse, label_smooth, sum) tensors (ops/tensor_more.py, ops/shape_more.py)."""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import convert_dtype, from_numpy_dtype
from paddle_ir.framework import (
    Variable,
    default_main_program,
    default_startup_program,
    unique_name,
)
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.tensor import fill_constant

__all__ = ["argsort", "create_global_var", "create_parameter", "create_tensor", "cumsum",
           "diag", "eye", "has_inf", "has_nan", "isfinite", "label_smooth", "linspace",
           "load", "ones_like", "range", "rank", "reverse", "shape", "size", "sum",
           "tensor_array_to_tensor", "unique", "unique_with_counts"]


def _op(op_type: str, inputs: dict, outputs: dict, attrs=None, name=None):
    """Append op_type; `outputs` maps slot -> dtype (None: the first input's)."""
    helper = LayerHelper(op_type, name)
    first = next(iter(inputs.values()), None)
    outs = {slot: helper.create_variable_for_type_inference(
        convert_dtype(dtype) if dtype is not None else first.dtype,
        stop_gradient=dtype is not None) for slot, dtype in outputs.items()}
    helper.append_op(op_type, inputs=inputs, outputs=outs, attrs=attrs)
    values = list(outs.values())
    return values[0] if len(values) == 1 else tuple(values)


def assign_value(values) -> Variable:
    """A constant tensor holding a numpy array (or nested list), built into the program."""
    arr = np.asarray(values)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    key = {np.dtype(np.float32): "fp32_values", np.dtype(np.int32): "int32_values",
           np.dtype(np.int64): "int64_values", np.dtype(np.bool_): "bool_values"}.get(arr.dtype)
    if key is None:
        raise TypeError(f"assign_value: unsupported dtype {arr.dtype}; use float32, int32, "
                        f"int64 or bool")
    helper = LayerHelper("assign_value")
    out = helper.create_variable_for_type_inference(arr.dtype, stop_gradient=True)
    flat = arr.reshape(-1)
    helper.append_op("assign_value", outputs={"Out": out},
                     attrs={"shape": list(arr.shape), "dtype": from_numpy_dtype(arr.dtype),
                            key: [v.item() if key != "bool_values" else bool(v) for v in flat]})
    return out


def shape(input: Variable) -> Variable:  # noqa: A002
    """input's shape at run time, int32 [rank]."""
    return _op("shape", {"Input": input}, {"Out": "int32"})


def rank(input: Variable) -> Variable:  # noqa: A002
    """input's rank, known when the program is built: an int32 [1] constant."""
    return fill_constant([1], "int32", len(input.shape))


def size(input: Variable) -> Variable:  # noqa: A002
    """input's element count at run time, int64 [1]."""
    return _op("size", {"Input": input}, {"Out": "int64"})


def _as_tensor(value, dtype) -> Variable:
    return value if isinstance(value, Variable) else fill_constant([1], dtype, value)


def range(start, end, step, dtype) -> Variable:  # noqa: A001 - Fluid's name
    """[start, start + step, ...) below end; each bound a number or a [1] Variable."""
    dtype = convert_dtype(dtype)
    return _op("range", {"Start": _as_tensor(start, dtype), "End": _as_tensor(end, dtype),
                         "Step": _as_tensor(step, dtype)}, {"Out": dtype})


def linspace(start, stop, num, dtype) -> Variable:
    """num evenly spaced points from start to stop inclusive."""
    dtype = convert_dtype(dtype)
    return _op("linspace", {"Start": _as_tensor(start, dtype), "Stop": _as_tensor(stop, dtype),
                            "Num": _as_tensor(num, "int32")}, {"Out": dtype})


def diag(diagonal) -> Variable:
    """A square matrix with `diagonal` (a 1-D Variable or numpy array) on its diagonal."""
    if not isinstance(diagonal, Variable):
        diagonal = assign_value(diagonal)
    return _op("diag", {"Diagonal": diagonal}, {"Out": None})


def eye(num_rows: int, num_columns: int | None = None, batch_shape=None,
        dtype="float32") -> Variable:
    """The [num_rows, num_columns] identity (num_columns defaults to num_rows); batch_shape
    prepends dims by tiling, as Fluid."""
    dtype = convert_dtype(dtype)
    helper = LayerHelper("eye")
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("eye", outputs={"Out": out},
                     attrs={"num_rows": int(num_rows),
                            "num_columns": -1 if num_columns is None else int(num_columns),
                            "dtype": from_numpy_dtype(dtype)})
    if batch_shape:
        from paddle_ir.layers.extra_nn import expand_as

        target = fill_constant(list(batch_shape) + list(out.shape), dtype, 0.0)
        out = expand_as(_unsqueeze_front(out, len(batch_shape)), target)
    return out


def _unsqueeze_front(x: Variable, count: int) -> Variable:
    from paddle_ir.layers.tensor_ops import reshape

    return reshape(x, [1] * count + list(x.shape))


def isfinite(x: Variable) -> Variable:
    """[1] bool: whether every element of x is finite."""
    return _op("isfinite", {"X": x}, {"Out": "bool"})


def has_inf(x: Variable) -> Variable:
    """[1] bool: whether some element of x is +-inf."""
    return _op("isinf", {"X": x}, {"Out": "bool"})


def has_nan(x: Variable) -> Variable:
    """[1] bool: whether some element of x is NaN."""
    return _op("isnan", {"X": x}, {"Out": "bool"})


def cumsum(x: Variable, axis: int | None = None, exclusive: bool | None = None,
           reverse: bool | None = None) -> Variable:
    """The running sum along axis (default -1), optionally exclusive or from the end."""
    attrs = {"axis": -1 if axis is None else int(axis), "exclusive": bool(exclusive),
             "reverse": bool(reverse)}
    return _op("cumsum", {"X": x}, {"Out": None}, attrs)


def argsort(input: Variable, axis: int = -1, descending: bool = False,  # noqa: A002
            name=None):
    """(sorted input, int64 indices) along axis; a stable sort."""
    return _op("argsort", {"X": input}, {"Out": None, "Indices": "int64"},
               {"axis": int(axis), "descending": bool(descending)}, name)


def unique(x: Variable, dtype="int32"):
    """(distinct values in first-appearance order, each element's index into them)."""
    dt = convert_dtype(dtype)
    return _op("unique", {"X": x}, {"Out": None, "Index": dt}, {"dtype": from_numpy_dtype(dt)})


def unique_with_counts(x: Variable, dtype="int32"):
    """unique plus the count of each distinct value."""
    dt = convert_dtype(dtype)
    return _op("unique_with_counts", {"X": x}, {"Out": None, "Index": dt, "Count": dt},
               {"dtype": from_numpy_dtype(dt)})


def reverse(x: Variable, axis) -> Variable:
    """x flipped along axis (an int or a list)."""
    axes = [axis] if isinstance(axis, int) else list(axis)
    return _op("reverse", {"X": x}, {"Out": None}, {"axis": axes})


def label_smooth(label: Variable, prior_dist: Variable | None = None, epsilon: float = 0.1,
                 dtype="float32", name=None) -> Variable:
    """(1 - epsilon) label + epsilon * prior_dist (uniform 1 / K by default)."""
    inputs = {"X": label}
    if prior_dist is not None:
        inputs["PriorDist"] = prior_dist
    return _op("label_smooth", inputs, {"Out": None}, {"epsilon": float(epsilon)}, name)


def ones_like(x: Variable, out: Variable | None = None) -> Variable:
    """Ones with x's shape and dtype."""
    helper = LayerHelper("ones_like")
    if out is None:
        out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("fill_any_like", inputs={"X": x}, outputs={"Out": out},
                     attrs={"value": 1.0})
    return out


def sum(x) -> Variable:  # noqa: A001 - Fluid's name
    """The elementwise sum of a list of tensors (fluid.layers.sum)."""
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    helper = LayerHelper("sum")
    out = helper.create_variable_for_type_inference(xs[0].dtype)
    helper.append_op("sum", inputs={"X": xs}, outputs={"Out": out})
    return out


def create_tensor(dtype, name: str | None = None, persistable: bool = False) -> Variable:
    """An empty variable of dtype in the current block, for an op to fill."""
    block = default_main_program().current_block()
    return block.create_var(name=name or unique_name.generate("create_tensor"),
                            dtype=convert_dtype(dtype), persistable=persistable)


def create_parameter(shape, dtype, name: str | None = None, attr=None, is_bias: bool = False,
                     default_initializer=None):
    """A parameter of shape, initialized in the startup program (Xavier, or 0 for a bias)."""
    attr = ParamAttr.to_attr(attr) or ParamAttr()
    if name is not None and attr.name is None:
        attr.name = name
    helper = LayerHelper("create_parameter")
    return helper.create_parameter(attr, [int(d) for d in shape], convert_dtype(dtype),
                                   is_bias=is_bias, default_initializer=default_initializer)


def create_global_var(shape, value, dtype, persistable: bool = False, force_cpu: bool = False,
                      name: str | None = None) -> Variable:
    """A global-block variable set to `value` by the startup program (fill_constant)."""
    dtype = convert_dtype(dtype)
    name = name or unique_name.generate("global_var")
    var = default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=dtype, persistable=persistable, stop_gradient=True)
    startup = default_startup_program().global_block()
    init = startup.create_var(name=name, shape=shape, dtype=dtype, persistable=persistable)
    startup.append_op(
        "fill_constant", outputs={"Out": init},
        attrs={"shape": [int(d) for d in shape], "value": float(value),
               "dtype": from_numpy_dtype(dtype)})
    return var



def tensor_array_to_tensor(input: Variable, axis: int = 1, name=None,  # noqa: A002
                           use_stack: bool = False):
    """(the array's elements joined along axis, int32 sizes along axis)."""
    helper = LayerHelper("tensor_array_to_tensor", name)
    out = helper.create_variable_for_type_inference(input.dtype)
    index = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op("tensor_array_to_tensor", inputs={"X": input},
                     outputs={"Out": out, "OutIndex": index},
                     attrs={"axis": int(axis), "use_stack": bool(use_stack)})
    return out, index


def load(out: Variable, file_path: str, load_as_fp16: bool | None = None) -> None:
    """Fill `out` from a tensor file (one LoDTensor record) when the program runs."""
    helper = LayerHelper("load")
    helper.append_op("load", outputs={"Out": out},
                     attrs={"file_path": str(file_path), "load_as_fp16": bool(load_as_fp16)})
