"""The one vocabulary of value kinds (paddle_ir/core/kinds.py): VarType, class, storage."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core import kinds
from paddle_ir.core.rank_table import LoDRankTable
from paddle_ir.core.step_scopes import StepScopes


def _values():
    sr = pir.SelectedRows([1], np.ones((1, 2), np.float32), 3)
    return {
        kinds.LOD_TENSOR: np.zeros((2, 2), np.float32),
        kinds.SELECTED_ROWS: sr,
        kinds.CSR: pir.CSRTensor.from_dense(np.eye(2, dtype=np.float32)),
        kinds.LOD_TENSOR_ARRAY: pir.LoDTensorArray(),
        kinds.LOD_RANK_TABLE: LoDRankTable.__new__(LoDRankTable),
        kinds.STEP_SCOPES: StepScopes.__new__(StepScopes),
    }


def test_each_kind_maps_both_ways():
    for var_type, value in _values().items():
        assert kinds.var_type_of(value) == var_type
        assert value.__class__ is kinds.CLASS_OF_VAR_TYPE[var_type]
    assert kinds.var_type_of(np.float32(1.0)) == kinds.LOD_TENSOR  # a 0-D kernel result
    assert {kinds.VAR_TYPE_NAMES[k.var_type] for k in kinds.KINDS} == {
        "LOD_TENSOR", "SELECTED_ROWS", "CSR", "LOD_TENSOR_ARRAY", "LOD_RANK_TABLE",
        "STEP_SCOPES"}


def test_storage_names_agree_with_the_public_storage_type():
    values = _values()
    for var_type in (kinds.LOD_TENSOR, kinds.SELECTED_ROWS, kinds.CSR):
        value = values[var_type]
        assert kinds.storage_of(value) == pir.storage_type(value)
        assert kinds.VAR_TYPE_OF_STYPE[kinds.storage_of(value)] == var_type
    assert kinds.storage_of(values[kinds.LOD_TENSOR_ARRAY]) == kinds.STYPE_TENSOR_ARRAY
    # one answer, public too: an array selects kernels as "tensor_array" (core/kinds.py)
    assert pir.storage_type(values[kinds.LOD_TENSOR_ARRAY]) == kinds.STYPE_TENSOR_ARRAY


def test_the_registry_old_storage_names_are_gone():
    """Storage types are named by paddle_ir.core.kinds alone (STYPE_SELECTED_ROWS ...)."""
    from paddle_ir.ops import registry

    with pytest.raises(AttributeError, match="has no attribute 'SELECTED_ROWS'"):
        registry.SELECTED_ROWS  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'NOPE'"):
        registry.NOPE  # noqa: B018
