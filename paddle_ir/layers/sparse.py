"""Sparse storage layers: CSR data, storage casts, row retention and CSR products.

    x = csr_data("x", [-1, 1_000_000])             # fed a CSRTensor, scipy matrix or tuple
    logits = sparse_dot(x, w)                       # dense [batch, 1]; dW is SELECTED_ROWS
    g = cast_storage(dense, "row_sparse")           # SELECTED_ROWS: dense's non-zero rows
    kept = retain(g, ids)                           # only the rows listed in ids

docs/storage_types.md lists which storage each op's output gets.
"""

from __future__ import annotations

from paddle_ir.framework import Variable, VarType, default_main_program
from paddle_ir.layers.helper import LayerHelper

__all__ = ["cast_storage", "csr_data", "retain", "sparse_dot"]


def csr_data(name: str, shape, dtype="float32") -> Variable:
    """Declare a fed 2-D CSR matrix (sparse features), e.g. shape [-1, num_features].

    Feed it a `CSRTensor`, a scipy.sparse matrix, or a `(data, indices, indptr)`
    tuple (the width then comes from `shape`).
    """
    shape = [-1 if d is None else int(d) for d in shape]
    if len(shape) != 2:
        raise ValueError(f"a CSR variable is 2-D; got shape {shape}")
    return default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=dtype, type=VarType.CSR, stop_gradient=True)


def cast_storage(x: Variable, stype: str, name=None) -> Variable:
    """x's values in storage `stype`: 'dense' ('default'), 'selected_rows' ('row_sparse')
    or 'csr'."""
    helper = LayerHelper("cast_storage", name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("cast_storage", inputs={"X": x}, outputs={"Out": out},
                     attrs={"stype": stype})
    return out


def retain(x: Variable, indices: Variable, name=None) -> Variable:
    """The rows of a SELECTED_ROWS x listed in `indices` (an int32/int64 Variable)."""
    helper = LayerHelper("retain", name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("retain", inputs={"X": x, "Indices": indices}, outputs={"Out": out})
    return out


def sparse_dot(x: Variable, y: Variable, transpose_x: bool = False, name=None) -> Variable:
    """x @ y (dense) or x^T @ y (SELECTED_ROWS) for a CSR x."""
    helper = LayerHelper("sparse_dot", name)
    out = helper.create_variable_for_type_inference(y.dtype)
    helper.append_op("sparse_dot", inputs={"X": x, "Y": y}, outputs={"Out": out},
                     attrs={"transpose_x": bool(transpose_x)})
    return out
