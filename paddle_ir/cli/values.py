"""How the CLI shows values: a header line (name, shape, dtype, LoD) and a short preview."""

from __future__ import annotations

import textwrap

import numpy as np

from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.dtypes import dtype_name
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import SelectedRows


def preview(array: np.ndarray, indent: str = "  ") -> str:
    """At most a few rows of numbers: numpy's summarisation with a small threshold."""
    text = np.array2string(np.asarray(array), threshold=24, edgeitems=3, precision=4,
                           max_line_width=96)
    return textwrap.indent(text, indent)


def _csr_preview(csr: CSRTensor, count: int = 12, indent: str = "  ") -> str:
    """The first few non-zeros as (row, column)=value: a 12 KB fetch of shape [10**6, 10**4]
    must not be densified (37 GiB) to show three rows."""
    shown = min(count, csr.nnz)
    rows = np.searchsorted(csr.indptr, np.arange(shown), side="right") - 1
    number = "{:.4g}" if csr.data.dtype.kind in "biuf" else "{}"
    items = [f"({int(r)}, {int(c)})=" + number.format(v)
             for r, c, v in zip(rows, csr.indices[:shown], csr.data[:shown].tolist(),
                                strict=True)]
    more = f" ... ({csr.nnz - shown} more)" if csr.nnz > shown else ""
    return textwrap.indent("\n".join(textwrap.wrap(" ".join(items) + more, 92)) or "(empty)",
                           indent)


def _shape(shape) -> str:
    return "[" + ", ".join(str(int(d)) for d in shape) + "]"


def describe_value(name: str, value) -> str:
    """`name  shape=[..]  dtype=..  lod=[[lengths]]` and a preview; sparse values say so."""
    if isinstance(value, SelectedRows):
        rows = value.rows.tolist() if value.rows.size <= 12 else f"<{value.rows.size} rows>"
        head = (f"{name}  SELECTED_ROWS  shape={_shape(value.shape)}  "
                f"dtype={dtype_name(value.dtype)}  height={value.height}  rows={rows}")
        return head + "\n" + preview(value.value)
    if isinstance(value, CSRTensor):
        head = (f"{name}  CSR  shape={_shape(value.shape)}  dtype={dtype_name(value.dtype)}  "
                f"nnz={value.nnz}")
        return head + "\n" + _csr_preview(value)
    lod = value.recursive_sequence_lengths() if isinstance(value, LoDTensor) else []
    array = np.asarray(value)
    head = f"{name}  shape={_shape(array.shape)}  dtype={dtype_name(array.dtype)}  lod={lod}"
    return head + "\n" + preview(array)


def summarize_value(value) -> str:
    """One short token for a progress log: the numbers when few, else their mean."""
    if isinstance(value, (SelectedRows, CSRTensor)):
        return f"<{type(value).__name__} {_shape(value.shape)}>"
    array = np.asarray(value)
    if array.size <= 4 and array.dtype.kind in "biuf":
        items = ", ".join(f"{v:.6g}" for v in array.reshape(-1).tolist())
        # A fetched loss has shape [1] (Fluid 1.x): shown as the bare number.
        return f"[{items}]" if array.size != 1 else items
    if array.dtype.kind in "biufc":
        return f"mean({_shape(array.shape)})={array.mean():.6g}"
    return f"<{dtype_name(array.dtype)} {_shape(array.shape)}>"
