"""Fluid 1.7's elementwise math layers beyond the basic ones: rounding, trigonometry,
reciprocals, the shrinking and saturating activations, and elementwise max/min/pow/mod/
floordiv. Each appends one op (ops/math/unary_math.py, ops/elementwise_more.py).
"""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.math import _elementwise, _unary

__all__ = ["acos", "asin", "atan", "brelu", "ceil", "cos", "elementwise_floordiv",
           "elementwise_max", "elementwise_min", "elementwise_mod", "elementwise_pow", "elu",
           "erf", "floor", "hard_shrink", "logsigmoid", "pow", "reciprocal", "round", "rsqrt",
           "selu", "sin", "soft_relu", "softshrink", "softsign", "stanh", "tanh_shrink",
           "thresholded_relu"]


def floor(x: Variable, name=None) -> Variable:
    """The largest integer <= x (gradient zero)."""
    return _unary("floor", x, name)


def ceil(x: Variable, name=None) -> Variable:
    """The smallest integer >= x (gradient zero)."""
    return _unary("ceil", x, name)


def round(x: Variable, name=None) -> Variable:  # noqa: A001 - Paddle's name
    """x rounded to the nearest integer, halves away from zero (gradient zero)."""
    return _unary("round", x, name)


def cos(x: Variable, name=None) -> Variable:
    return _unary("cos", x, name)


def sin(x: Variable, name=None) -> Variable:
    return _unary("sin", x, name)


def acos(x: Variable, name=None) -> Variable:
    return _unary("acos", x, name)


def asin(x: Variable, name=None) -> Variable:
    return _unary("asin", x, name)


def atan(x: Variable, name=None) -> Variable:
    return _unary("atan", x, name)


def rsqrt(x: Variable, name=None) -> Variable:
    """1 / sqrt(x)."""
    return _unary("rsqrt", x, name)


def reciprocal(x: Variable, name=None) -> Variable:
    """1 / x."""
    return _unary("reciprocal", x, name)


def erf(x: Variable, name=None) -> Variable:
    """The Gauss error function."""
    return _unary("erf", x, name)


def logsigmoid(x: Variable, name=None) -> Variable:
    """log(sigmoid(x)), computed without overflow."""
    return _unary("logsigmoid", x, name)


def softsign(x: Variable, name=None) -> Variable:
    """x / (1 + |x|)."""
    return _unary("softsign", x, name)


def tanh_shrink(x: Variable, name=None) -> Variable:
    """x - tanh(x)."""
    return _unary("tanh_shrink", x, name)


def softshrink(x: Variable, alpha: float | None = None, name=None) -> Variable:
    """x - alpha above alpha, x + alpha below -alpha, 0 between (alpha defaults to 0.5)."""
    return _unary("softshrink", x, name, {"lambda": 0.5 if alpha is None else float(alpha)})


def hard_shrink(x: Variable, threshold: float | None = None, name=None) -> Variable:
    """x where |x| > threshold (default 0.5), else 0."""
    t = 0.5 if threshold is None else float(threshold)
    return _unary("hard_shrink", x, name, {"threshold": t})


def thresholded_relu(x: Variable, threshold: float | None = None, name=None) -> Variable:
    """x where x > threshold (default 1.0), else 0."""
    t = 1.0 if threshold is None else float(threshold)
    return _unary("thresholded_relu", x, name, {"threshold": t})


def elu(x: Variable, alpha: float = 1.0, name=None) -> Variable:
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    return _unary("elu", x, name, {"alpha": float(alpha)})


def selu(x: Variable, scale: float | None = None, alpha: float | None = None,
         name=None) -> Variable:
    """scale * elu(x, alpha) with the self-normalizing constants unless given."""
    attrs = {}
    if scale is not None:
        attrs["scale"] = float(scale)
    if alpha is not None:
        attrs["alpha"] = float(alpha)
    return _unary("selu", x, name, attrs)


def brelu(x: Variable, t_min: float = 0.0, t_max: float = 24.0, name=None) -> Variable:
    """x clipped to [t_min, t_max]."""
    return _unary("brelu", x, name, {"t_min": float(t_min), "t_max": float(t_max)})


def soft_relu(x: Variable, threshold: float = 40.0, name=None) -> Variable:
    """log(1 + exp(clip(x, -threshold, threshold)))."""
    return _unary("soft_relu", x, name, {"threshold": float(threshold)})


def stanh(x: Variable, scale_a: float = 0.67, scale_b: float = 1.7159, name=None) -> Variable:
    """scale_b * tanh(scale_a * x)."""
    return _unary("stanh", x, name, {"scale_a": float(scale_a), "scale_b": float(scale_b)})


def pow(x: Variable, factor: float = 1.0, name=None) -> Variable:  # noqa: A001 - Paddle's name
    """x ** factor, elementwise."""
    return _unary("pow", x, name, {"factor": float(factor)})


def elementwise_max(x, y, axis=-1, act=None, name=None):
    return _elementwise("elementwise_max", x, y, axis, act, name)


def elementwise_min(x, y, axis=-1, act=None, name=None):
    return _elementwise("elementwise_min", x, y, axis, act, name)


def elementwise_pow(x, y, axis=-1, act=None, name=None):
    return _elementwise("elementwise_pow", x, y, axis, act, name)


def elementwise_mod(x, y, axis=-1, act=None, name=None):
    return _elementwise("elementwise_mod", x, y, axis, act, name)


def elementwise_floordiv(x, y, axis=-1, act=None, name=None):
    return _elementwise("elementwise_floordiv", x, y, axis, act, name)
