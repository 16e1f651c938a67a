"""Elementwise arithmetic, scaling and the Variable operator overloads."""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.tensor import fill_constant


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
    Variable.__neg__ = lambda self: scale(self, scale=-1.0)


monkey_patch_variable()


# --- activations and reductions ----------------------------------------------------------------


def _unary(op_type: str, x: Variable, name=None, attrs=None) -> Variable:
    helper = LayerHelper(op_type, name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, inputs={"X": x}, outputs={"Out": out}, attrs=attrs)
    return out


def relu(x: Variable, name=None) -> Variable:
    """max(x, 0)."""
    return _unary("relu", x, name)


def sigmoid(x: Variable, name=None) -> Variable:
    """1 / (1 + exp(-x))."""
    return _unary("sigmoid", x, name)


def tanh(x: Variable, name=None) -> Variable:
    return _unary("tanh", x, name)


def exp(x: Variable, name=None) -> Variable:
    return _unary("exp", x, name)


def log(x: Variable, name=None) -> Variable:
    """The natural logarithm."""
    return _unary("log", x, name)


def sqrt(x: Variable, name=None) -> Variable:
    return _unary("sqrt", x, name)


def square(x: Variable, name=None) -> Variable:
    return _unary("square", x, name)


def abs(x: Variable, name=None) -> Variable:  # noqa: A001 - Paddle's name
    return _unary("abs", x, name)


def sign(x: Variable, name=None) -> Variable:
    """-1, 0 or 1 elementwise; its gradient is zero."""
    return _unary("sign", x, name)


def softplus(x: Variable, beta: float = 1.0, threshold: float = 20.0, name=None) -> Variable:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    return _unary("softplus", x, name, {"beta": float(beta), "threshold": float(threshold)})


def mean(x: Variable, name=None) -> Variable:
    """The mean of all of x's elements, of shape [1] (Fluid 1.x)."""
    return _unary("mean", x, name)


def _reduce(op_type: str, input: Variable, dim, keep_dim: bool, name) -> Variable:  # noqa: A002
    """Paddle's reduce layers: dim None or [] reduces everything."""
    if dim is not None and not isinstance(dim, (list, tuple)):
        dim = [dim]
    attrs = {"dim": [int(d) for d in dim] if dim else [0], "keep_dim": bool(keep_dim),
             "reduce_all": not dim}
    return _unary(op_type, input, name, attrs)


def reduce_sum(input: Variable, dim=None, keep_dim: bool = False, name=None) -> Variable:  # noqa: A002
    """The sum over `dim` (an int or a list; None: every axis, giving shape [1])."""
    return _reduce("reduce_sum", input, dim, keep_dim, name)


def reduce_mean(input: Variable, dim=None, keep_dim: bool = False, name=None) -> Variable:  # noqa: A002
    """The mean over `dim` (an int or a list; None: every axis, giving shape [1])."""
    return _reduce("reduce_mean", input, dim, keep_dim, name)
