"""Variable's Python arithmetic and ordering (x + y, 2 * x, -x, x < 10) as ops: Fluid's
layers.math_op_patch.

Variable lives in the builder, below the layers, so it cannot call them; loading this
module installs the operators on Variable (monkey_patch_variable), and importing any
part of paddle_ir loads the layers.
"""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.control_flow.compare import (
    greater_equal,
    greater_than,
    less_equal,
    less_than,
)
from paddle_ir.layers.helper import _elementwise
from paddle_ir.layers.nn.elementwise import scale
from paddle_ir.layers.tensor import fill_constant

__all__ = ["binary_operator", "compare_operator", "monkey_patch_variable"]


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
        other = fill_constant([1], x.dtype, value)
    if not isinstance(other, Variable):
        raise TypeError(f"cannot combine a Variable with {type(other).__name__}")
    left, right = (other, x) if reverse else (x, other)
    return _elementwise(op_type, left, right)


_OPERATORS = {"__add__": ("elementwise_add", False), "__radd__": ("elementwise_add", True),
              "__sub__": ("elementwise_sub", False), "__rsub__": ("elementwise_sub", True),
              "__mul__": ("elementwise_mul", False), "__rmul__": ("elementwise_mul", True),
              "__truediv__": ("elementwise_div", False),
              "__rtruediv__": ("elementwise_div", True)}


# x < y as the compare op's bool Variable, as Fluid 1.7 patches them; Python reflects
# `10 > x` to `x < 10`. == and != keep Python's identity meaning here: Variables are
# dictionary keys and list members all through the builder, which Fluid's elementwise
# `equal` would break.
_COMPARISONS = {"__lt__": less_than, "__le__": less_equal, "__gt__": greater_than,
                "__ge__": greater_equal}


def compare_operator(x: Variable, other, compare) -> Variable:
    """`x < other` etc. for Variable overloads; a Python number becomes a fill_constant."""
    if isinstance(other, (int, float)) and not isinstance(other, bool):
        other = fill_constant([1], x.dtype, other)
    if not isinstance(other, Variable):
        return NotImplemented
    return compare(x, other)


def _comparison(dunder: str, compare):
    def method(self, other):
        return compare_operator(self, other, compare)

    method.__name__ = method.__qualname__ = dunder
    return method


def _operator(dunder: str, op_type: str, reverse: bool):
    def method(self, other):
        return binary_operator(self, other, op_type, reverse)

    method.__name__ = method.__qualname__ = dunder
    return method


def monkey_patch_variable() -> None:
    """Give Variable (and so Parameter) Python's arithmetic operators, appending ops.

    Variable lives in the builder, below the layers, so it cannot call them; the
    layers install the operators here instead, when this module loads.
    """
    for dunder, (op_type, reverse) in _OPERATORS.items():
        setattr(Variable, dunder, _operator(dunder, op_type, reverse))
    for dunder, compare in _COMPARISONS.items():
        setattr(Variable, dunder, _comparison(dunder, compare))
    Variable.__neg__ = lambda self: scale(self, scale=-1.0)


monkey_patch_variable()
