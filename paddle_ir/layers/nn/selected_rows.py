"""SelectedRows layers of Fluid 1.7's layers.nn: merge_selected_rows and
get_tensor_from_selected_rows.
"""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import _one

__all__ = ["get_tensor_from_selected_rows", "merge_selected_rows"]


def merge_selected_rows(x: Variable, name=None) -> Variable:
    """A SelectedRows with sorted unique rows, duplicates summed."""
    return _one("merge_selected_rows", {"X": x}, name=name)


def get_tensor_from_selected_rows(x: Variable, name=None) -> Variable:
    """A SelectedRows' value tensor, [len(rows)] + dims[1:]."""
    return _one("get_tensor_from_selected_rows", {"X": x}, name=name)
