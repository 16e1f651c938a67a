"""Tensor-making layers: fill_constant, ..."""

from __future__ import annotations

from paddle_ir.core.dtypes import convert_dtype, from_numpy_dtype
from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.ops.tensor.fill import constant_attrs


def fill_constant(shape, dtype, value, force_cpu: bool = False, out: Variable | None = None,
                  name=None) -> Variable:
    """A tensor of `shape` filled with `value` (computed when the program runs)."""
    helper = LayerHelper("fill_constant", name)
    dtype = convert_dtype(dtype)
    if out is None:
        out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    # str_value keeps the exact value (int64 2**24+1, float64 0.1); `value` is a float32.
    helper.append_op("fill_constant", outputs={"Out": out},
                     attrs=constant_attrs(shape, dtype, value))
    return out


def concat(input, axis: int = 0, name=None) -> Variable:  # noqa: A002 - Paddle's name
    """The tensors of `input` (a list) joined along `axis`."""
    helper = LayerHelper("concat", name)
    inputs = list(input)
    out = helper.create_variable_for_type_inference(inputs[0].dtype)
    helper.append_op("concat", inputs={"X": inputs}, outputs={"Out": out},
                     attrs={"axis": int(axis)})
    return out


def cast(x: Variable, dtype) -> Variable:
    """x's values converted to `dtype` (a name, a numpy dtype or a DataType number)."""
    helper = LayerHelper("cast")
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op("cast", inputs={"X": x}, outputs={"Out": out},
                     attrs={"in_dtype": from_numpy_dtype(x.dtype),
                            "out_dtype": from_numpy_dtype(dtype)})
    return out


def __getattr__(name: str):
    # a layer Fluid 1.x defines in this module but paddle-ir elsewhere (fluid_layout.py)
    from paddle_ir.layers.fluid_layout import attribute

    return attribute(__name__, name)
