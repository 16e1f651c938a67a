"""Comparison layers of Fluid 1.7's layers.control_flow: less_than, less_equal,
greater_than, greater_equal, equal and not_equal (a bool output, no gradient).
"""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import _compare

__all__ = ["equal", "greater_equal", "greater_than", "less_equal", "less_than", "not_equal"]


def less_than(x, y, force_cpu=None, cond=None) -> Variable:
    """x < y as bool; `cond` names the variable to write (a loop condition)."""
    return _compare("less_than", x, y, cond)


def less_equal(x, y, cond=None) -> Variable:
    return _compare("less_equal", x, y, cond)


def greater_than(x, y, cond=None) -> Variable:
    return _compare("greater_than", x, y, cond)


def greater_equal(x, y, cond=None) -> Variable:
    return _compare("greater_equal", x, y, cond)


def equal(x, y, cond=None) -> Variable:
    return _compare("equal", x, y, cond)


def not_equal(x, y, cond=None) -> Variable:
    return _compare("not_equal", x, y, cond)
