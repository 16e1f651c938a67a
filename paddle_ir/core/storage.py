"""Storage types of values, and conversions between them (MXNet's `stype` and `tostype`).

| storage         | value class                  | MXNet name   |
|-----------------|------------------------------|--------------|
| `dense`         | `np.ndarray` (or LoDTensor)  | `default`    |
| `selected_rows` | `SelectedRows`               | `row_sparse` |
| `csr`           | `CSRTensor` (2-D)            | `csr`        |

    tostype(np.ones((2, 2)), "row_sparse")   # SelectedRows with rows [0, 1]
    tostype(sr, "default")                    # its dense ndarray

A conversion always returns a new value, even to the storage the value
already has. Converting between the two sparse storages never builds the
dense form.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.csr import STYPE_CSR, CSRTensor
from paddle_ir.core.errors import StorageTypeError
from paddle_ir.core.kinds import KINDS
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import STYPE_DENSE, STYPE_SELECTED_ROWS, SelectedRows

STORAGE_TYPES = (STYPE_DENSE, STYPE_SELECTED_ROWS, STYPE_CSR)
_ALIASES = {"dense": STYPE_DENSE, "default": STYPE_DENSE,
            "selected_rows": STYPE_SELECTED_ROWS, "row_sparse": STYPE_SELECTED_ROWS,
            "csr": STYPE_CSR}
# The sparse kinds of the one table (core/kinds.py); everything else is dense here.
_STYPE_OF_CLASS = {k.value_class: k.storage for k in KINDS if k.sparse}


def canonical_stype(stype: str) -> str:
    """'dense', 'selected_rows' or 'csr' for any accepted name (MXNet's included)."""
    kind = _ALIASES.get(stype) if isinstance(stype, str) else None
    if kind is None:
        raise StorageTypeError(
            f"unknown storage type {stype!r}; expected one of {sorted(_ALIASES)}")
    return kind


def storage_type(value) -> str:
    """The storage type of a value; anything that is not a sparse value is dense."""
    return _STYPE_OF_CLASS.get(value.__class__, STYPE_DENSE)


def tostype(value, stype: str):
    """`value` converted to storage `stype`, as a new value.

    Dense inputs are ndarrays, LoDTensors (their LoD is dropped) or anything
    np.asarray accepts. 'csr' needs a 2-D value.
    """
    target = canonical_stype(stype)
    source = storage_type(value)
    if source == STYPE_SELECTED_ROWS:
        if target == STYPE_CSR:
            return CSRTensor.from_selected_rows(value)
        return value.to_dense() if target == STYPE_DENSE else value.copy()
    if source == STYPE_CSR:
        if target == STYPE_SELECTED_ROWS:
            return value.to_selected_rows()
        return value.to_dense() if target == STYPE_DENSE else value.copy()
    array = value.numpy() if isinstance(value, LoDTensor) else np.asarray(value)
    if target == STYPE_SELECTED_ROWS:
        if array.ndim == 0:
            raise StorageTypeError("a 0-D value has no rows; it cannot be SELECTED_ROWS")
        return SelectedRows.from_dense(array)  # (fancy indexing copies the rows)
    if target == STYPE_CSR:
        if array.ndim != 2:
            raise StorageTypeError(
                f"csr storage needs a 2-D value, got shape {list(array.shape)}")
        return CSRTensor.from_dense(array)
    return array.copy()
