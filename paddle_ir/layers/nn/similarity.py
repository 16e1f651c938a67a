"""Similarity layers of Fluid 1.7's layers.nn: cos_sim and similarity_focus."""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper, _single

__all__ = ["cos_sim", "similarity_focus"]


def similarity_focus(input: Variable, axis: int, indexes, name=None) -> Variable:  # noqa: A002
    """A 0/1 mask of input's shape marking, per index along axis, the greedy row- and
    column-exclusive maxima of that slice."""
    return _single("similarity_focus", {"X": input}, "Out",
                   {"axis": int(axis), "indexes": [int(i) for i in indexes]}, name)


def cos_sim(X: Variable, Y: Variable) -> Variable:  # noqa: N803 - Fluid's argument names
    """The cosine similarity [N, 1] of the rows of X and Y (Y: N rows, or one row for all)."""
    helper = LayerHelper("cos_sim")
    out = helper.create_variable_for_type_inference(X.dtype)
    x_norm = helper.create_variable_for_type_inference(X.dtype, stop_gradient=True)
    y_norm = helper.create_variable_for_type_inference(X.dtype, stop_gradient=True)
    helper.append_op("cos_sim", inputs={"X": X, "Y": Y},
                     outputs={"Out": out, "XNorm": x_norm, "YNorm": y_norm})
    return out
