"""Tensor-making layers: fill_constant, ..."""

from __future__ import annotations

from paddle_ir.core.dtypes import convert_dtype, from_numpy_dtype
from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper


def fill_constant(shape, dtype, value, force_cpu: bool = False, out: Variable | None = None,
                  name=None) -> Variable:
    """A tensor of `shape` filled with `value` (computed when the program runs)."""
    helper = LayerHelper("fill_constant", name)
    dtype = convert_dtype(dtype)
    if out is None:
        out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("fill_constant", outputs={"Out": out},
                     attrs={"shape": [int(d) for d in shape], "dtype": from_numpy_dtype(dtype),
                            "value": float(value)})
    return out
