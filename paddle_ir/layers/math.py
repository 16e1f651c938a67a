"""Elementwise arithmetic, scaling and the Variable operator overloads."""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper


def _elementwise(op_type: str, x: Variable, y: Variable, axis: int = -1, act=None,
                 name=None) -> Variable:
    helper = LayerHelper(op_type, name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, inputs={"X": x, "Y": y}, outputs={"Out": out},
                     attrs={"axis": axis})
    return helper.append_activation(out, act)


def elementwise_add(x, y, axis=-1, act=None, name=None):
    return _elementwise("elementwise_add", x, y, axis, act, name)


def elementwise_sub(x, y, axis=-1, act=None, name=None):
    return _elementwise("elementwise_sub", x, y, axis, act, name)


def elementwise_mul(x, y, axis=-1, act=None, name=None):
    return _elementwise("elementwise_mul", x, y, axis, act, name)


def elementwise_div(x, y, axis=-1, act=None, name=None):
    return _elementwise("elementwise_div", x, y, axis, act, name)


def scale(x: Variable, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True,
          act=None, name=None) -> Variable:
    helper = LayerHelper("scale", name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("scale", inputs={"X": x}, outputs={"Out": out},
                     attrs={"scale": float(scale), "bias": float(bias),
                            "bias_after_scale": bias_after_scale})
    return helper.append_activation(out, act)


def binary_operator(x: Variable, other, op_type: str, reverse: bool) -> Variable:
    """`x (op) other` for Variable overloads; a Python number becomes scale or fill_constant."""
    if isinstance(other, (int, float)) and not isinstance(other, bool):
        value = float(other)
        if op_type == "elementwise_add":
            return scale(x, 1.0, value)
        if op_type == "elementwise_sub":
            return scale(x, -1.0, value) if reverse else scale(x, 1.0, -value)
        if op_type == "elementwise_mul":
            return scale(x, value)
        if op_type == "elementwise_div" and not reverse:
            return scale(x, 1.0 / value)
        from paddle_ir.layers.tensor import fill_constant

        other = fill_constant([1], x.dtype, value)
    if not isinstance(other, Variable):
        raise TypeError(f"cannot combine a Variable with {type(other).__name__}")
    left, right = (other, x) if reverse else (x, other)
    return _elementwise(op_type, left, right)
