"""Storage-type rules and sparse-kernel adapters that several ops share.

Storage-type inference is its own rule per op, as in MXNet: an op's
`infer_var_type` decides from its inputs' variable types (and attributes)
whether each output is LOD_TENSOR (dense), SELECTED_ROWS or CSR, before shape
inference runs. docs/storage_types.md tabulates the rules of every op.

A zero-preserving unary op (f(0) = 0: abs, sqrt, square, sign, relu, tanh,
scale with bias 0, ...) maps a SelectedRows to a SelectedRows by applying its
dense function to the stored rows only; `register_rowwise` gives such an op
the rule and the kernel in one call.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from paddle_ir.core.kinds import LOD_TENSOR, SELECTED_ROWS, STYPE_SELECTED_ROWS
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.registry import DENSE, OpDef


def keep_selected_rows(src: str = "X", dst: str = "Out",
                       when: Callable[[dict], bool] | None = None) -> Callable:
    """A var-type rule: `dst` is SELECTED_ROWS when `src` is (and `when(attrs)` holds)."""

    def infer_var_type(ctx):
        sparse = ctx.input_var_type(src) == SELECTED_ROWS and (when is None or when(ctx.attrs))
        ctx.set_output_type(dst, SELECTED_ROWS if sparse else LOD_TENSOR)

    return infer_var_type


def unique_rows(x: SelectedRows) -> SelectedRows:
    """x with each row stored once (duplicates summed); x itself when already so."""
    rows = x.rows
    if rows.size < 2 or bool((rows[1:] > rows[:-1]).all()):
        return x
    return x.merge()


def dense_from_rows(dense_fn: Callable, attrs: dict, x: SelectedRows) -> np.ndarray:
    """The dense f(X) of an elementwise f with f(0) != 0, from the stored rows only:
    f(0) everywhere, f(row) on the rows X stores (duplicates summed first)."""
    x = unique_rows(x)
    value = dense_fn(attrs, x.value)
    out = np.empty(x.shape, dtype=value.dtype)
    out[...] = dense_fn(attrs, np.zeros((1,) + x.value.shape[1:], dtype=x.dtype))
    out[x.rows] = value
    return out


def rowwise_kernel(dense_fn: Callable, name: str,
                   when: Callable[[dict], bool] | None = None) -> Callable:
    """A SelectedRows kernel for an elementwise unary `dense_fn(attrs, array)`.

    Duplicate rows are summed first (f(a + b) is not f(a) + f(b)), then f runs
    on the stored rows only. When `when(attrs)` does not hold, f(0) != 0 and Out
    is dense: f(0) everywhere, f(row) on the stored rows; the input is never
    densified.
    """

    def kernel(attrs, x: SelectedRows):
        if when is not None and not when(attrs):
            return dense_from_rows(dense_fn, attrs, x)
        x = unique_rows(x)
        return SelectedRows.unchecked(x.rows, dense_fn(attrs, x.value), x.height)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def register_rowwise(opdef: OpDef, dense_fn: Callable, src: str = "X", dst: str = "Out",
                     when: Callable[[dict], bool] | None = None) -> None:
    """Give a unary op (one key input) a SELECTED_ROWS rule and kernel, for every dtype of
    its dense kernel.

    With `when`, only attributes for which `when(attrs)` holds are zero-preserving
    (clip: 0 inside [min, max]); for the others the rule says dense.
    """
    opdef.infer_var_type(keep_selected_rows(src, dst, when))
    dtypes = [k.dtype for k in opdef.kernels if k.storage == (DENSE,)]
    opdef.kernel(storage=[STYPE_SELECTED_ROWS], dtypes=dtypes)(
        rowwise_kernel(dense_fn, f"{opdef.type}_selected_rows", when))
