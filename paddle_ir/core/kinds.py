"""One vocabulary for the kind of value a variable holds.

Three names describe the same thing in three places: the VarType a VarDesc
declares (the schema), the class of the value a frame or scope holds, and the
storage type kernels are keyed by (ops/registry.py). This table is the only
place they are tied together:

| VarType            | value class (in a frame)         | storage (kernel key) |
|--------------------|----------------------------------|----------------------|
| `LOD_TENSOR`       | `np.ndarray` (LoD kept beside it) | `"dense"`            |
| `SELECTED_ROWS`    | `SelectedRows`                   | `"selected_rows"`    |
| `CSR`              | `CSRTensor`                      | `"csr"`              |
| `LOD_TENSOR_ARRAY` | `LoDTensorArray`                 | `"tensor_array"`     |
| `LOD_RANK_TABLE`   | `LoDRankTable`                   | (not a kernel key)   |
| `STEP_SCOPES`      | `StepScopes`                     | (not a kernel key)   |

Names: the VarTypes are ints (`LOD_TENSOR`, `SELECTED_ROWS`, ...), the storage
types strings prefixed `STYPE_` (`STYPE_SELECTED_ROWS`), so that one name never
means both.

`storage_of(value)` (public as `paddle_ir.storage_type`) is the one answer to
"which storage is this value": the kernel key's. A LoDTensorArray answers
`"tensor_array"`, since that is what selects kernels over arrays (the sum of
array gradients); it is not a tensor, so neither "dense" nor a sparse storage.

Conversions between the tensor storages (MXNet's `stype` and `tostype`):

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

from dataclasses import dataclass

import numpy as np

from paddle_ir.core.csr import STYPE_CSR, CSRTensor
from paddle_ir.core.errors import StorageTypeError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.rank_table import LoDRankTable
from paddle_ir.core.selected_rows import STYPE_DENSE, STYPE_SELECTED_ROWS, SelectedRows
from paddle_ir.core.step_scopes import StepScopes
from paddle_ir.core.tensor_array import LoDTensorArray
from paddle_ir.proto import framework_pb2 as pb

LOD_TENSOR = pb.VarDesc.LOD_TENSOR
SELECTED_ROWS = pb.VarDesc.SELECTED_ROWS
CSR = pb.VarDesc.CSR
LOD_TENSOR_ARRAY = pb.VarDesc.LOD_TENSOR_ARRAY
LOD_RANK_TABLE = pb.VarDesc.LOD_RANK_TABLE
STEP_SCOPES = pb.VarDesc.STEP_SCOPES
VAR_TYPE_NAMES = {number: name for name, number in pb.VarDesc.VarType.items()}

STYPE_TENSOR_ARRAY = "tensor_array"  # a LoDTensorArray key input (sum over array gradients)


@dataclass(frozen=True)
class Kind:
    """One kind of value: its VarType, value class and storage string."""

    var_type: int
    value_class: type
    storage: str | None  # None: never a kernel key
    sparse: bool = False  # a sparse tensor (densified by a fallback)
    container: bool = False  # not a tensor: inference checks only its type


KINDS = (
    Kind(LOD_TENSOR, np.ndarray, STYPE_DENSE),
    Kind(SELECTED_ROWS, SelectedRows, STYPE_SELECTED_ROWS, sparse=True),
    Kind(CSR, CSRTensor, STYPE_CSR, sparse=True),
    Kind(LOD_TENSOR_ARRAY, LoDTensorArray, STYPE_TENSOR_ARRAY, container=True),
    Kind(LOD_RANK_TABLE, LoDRankTable, None, container=True),
    Kind(STEP_SCOPES, StepScopes, None, container=True),
)

CLASS_OF_VAR_TYPE = {k.var_type: k.value_class for k in KINDS}
VAR_TYPE_OF_STYPE = {k.storage: k.var_type for k in KINDS if k.storage is not None}
SPARSE_CLASSES = tuple(k.value_class for k in KINDS if k.sparse)
CONTAINER_CLASSES = tuple(k.value_class for k in KINDS if k.container)
# Anything not listed (an ndarray, a numpy scalar from a 0-D input) is a dense LOD_TENSOR.
_VAR_TYPE_OF_CLASS = {k.value_class: k.var_type for k in KINDS if k.var_type != LOD_TENSOR}
_STYPE_OF_CLASS = {k.value_class: k.storage for k in KINDS if k.storage not in (None,
                                                                                STYPE_DENSE)}


def var_type_of(value) -> int:
    """The VarType of a frame value."""
    return _VAR_TYPE_OF_CLASS.get(value.__class__, LOD_TENSOR)


def storage_of(value) -> str:
    """The storage type a value selects kernels by; anything unlisted is dense."""
    return _STYPE_OF_CLASS.get(value.__class__, STYPE_DENSE)


storage_type = storage_of  # the public name (paddle_ir.storage_type), MXNet's `stype`


def var_type_name(var_type: int) -> str:
    return VAR_TYPE_NAMES.get(var_type, f"VarType({var_type})")


# --- conversions between storages --------------------------------------------------------

STORAGE_TYPES = (STYPE_DENSE, STYPE_SELECTED_ROWS, STYPE_CSR)
_ALIASES = {"dense": STYPE_DENSE, "default": STYPE_DENSE,
            "selected_rows": STYPE_SELECTED_ROWS, "row_sparse": STYPE_SELECTED_ROWS,
            "csr": STYPE_CSR}


def canonical_stype(stype: str) -> str:
    """'dense', 'selected_rows' or 'csr' for any accepted name (MXNet's included)."""
    kind = _ALIASES.get(stype) if isinstance(stype, str) else None
    if kind is None:
        raise StorageTypeError(
            f"unknown storage type {stype!r}; expected one of {sorted(_ALIASES)}")
    return kind


def tostype(value, stype: str):
    """`value` converted to storage `stype`, as a new value.

    Dense inputs are ndarrays, LoDTensors (their LoD is dropped) or anything
    np.asarray accepts. 'csr' needs a 2-D value.
    """
    target = canonical_stype(stype)
    source = storage_of(value)
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
