"""cos_sim and square_error_cost (Fluid 1.x's)."""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper

__all__ = ["cos_sim", "square_error_cost"]


def cos_sim(X: Variable, Y: Variable) -> Variable:  # noqa: N803 - Fluid's argument names
    """The cosine similarity [N, 1] of the rows of X and Y (Y: N rows, or one row for all)."""
    helper = LayerHelper("cos_sim")
    out = helper.create_variable_for_type_inference(X.dtype)
    x_norm = helper.create_variable_for_type_inference(X.dtype, stop_gradient=True)
    y_norm = helper.create_variable_for_type_inference(X.dtype, stop_gradient=True)
    helper.append_op("cos_sim", inputs={"X": X, "Y": Y},
                     outputs={"Out": out, "XNorm": x_norm, "YNorm": y_norm})
    return out


def square_error_cost(input: Variable, label: Variable) -> Variable:  # noqa: A002
    """(input - label)^2, elementwise."""
    helper = LayerHelper("square_error_cost")
    minus = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("elementwise_sub", inputs={"X": input, "Y": label},
                     outputs={"Out": minus})
    square = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("square", inputs={"X": minus}, outputs={"Out": square})
    return square
