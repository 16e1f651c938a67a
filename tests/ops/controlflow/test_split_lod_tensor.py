"""split_lod_tensor (ops/controlflow/split_lod_tensor.py) against a nested-list model."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op
from tests.ops.controlflow.lod_items import items_of, tensor_of

rng = np.random.RandomState(11)
LOD = [[0, 2, 3, 5], [0, 1, 3, 3, 6, 7]]  # 3 sequences of 5 sub-sequences (one empty)


def _reference(data, lod, mask, level):
    items = items_of(data, lod, level)
    below = len(lod) - level if lod else 0
    true = [it for it, m in zip(items, mask, strict=True) if m]
    false = [it for it, m in zip(items, mask, strict=True) if not m]
    return (tensor_of(true, below, data.shape[1:], data.dtype),
            tensor_of(false, below, data.shape[1:], data.dtype))


@pytest.mark.parametrize("lod, level, mask", [
    (LOD, 0, [True, False, True]),
    (LOD, 1, [False, True, True, False, True]),
    (LOD, 0, [False, False, False]),            # an empty true branch
    ([], 0, [True, False, False, True]),        # rows, no LoD
    ([[0, 3, 4]], 0, [False, True]),
])
def test_matches_the_nested_list_model(lod, level, mask):
    rows = lod[-1][-1] if lod else len(mask)
    data = rng.uniform(-1, 1, (rows, 2))
    x = pir.LoDTensor(data, lod) if lod else data
    got = check_op("split_lod_tensor", {"X": x, "Mask": np.array(mask).reshape(-1, 1)},
                   {"level": level})
    for slot, (want_data, want_lod) in zip(("OutTrue", "OutFalse"),
                                           _reference(data, lod, mask, level), strict=True):
        (value,) = got[slot]
        np.testing.assert_array_equal(np.array(value), want_data)
        assert value.lod() == want_lod


def test_ints_keep_their_dtype():
    data = np.arange(8, dtype=np.int64).reshape(4, 2)
    got = check_op("split_lod_tensor", {"X": data, "Mask": np.array([[1], [0], [0], [1]],
                                                                    dtype=bool)})
    np.testing.assert_array_equal(np.array(got["OutTrue"][0]), data[[0, 3]])
    assert np.array(got["OutFalse"][0]).dtype == np.int64


def test_gradient_is_merged_back():
    x = pir.LoDTensor(rng.uniform(-1, 1, (7, 2)), LOD)
    mask = np.array([[True], [False], [True]])
    for out in ("OutTrue", "OutFalse"):
        check_grad("split_lod_tensor", {"X": x, "Mask": mask}, wrt=("X",), out_slot=out)


@pytest.mark.parametrize("inputs, attrs, match", [
    ({"X": pir.LoDTensor(np.ones((7, 2)), LOD), "Mask": np.ones((2, 1), bool)}, {},
     "split_lod_tensor: Mask has 2 entries, but X has 3 items"),
    ({"X": pir.LoDTensor(np.ones((7, 2)), LOD), "Mask": np.ones((3, 1), bool)},
     {"level": 2}, "split_lod_tensor: level 2 is out of range: X has 2 LoD level"),
    ({"X": np.ones((3, 2)), "Mask": np.ones((3, 1), bool)}, {"level": 1},
     "split_lod_tensor: X has no LoD, so level must be 0"),
    ({"X": np.ones((3, 2)), "Mask": np.ones((3, 2), bool)}, {},
     "Mask must be a \\[N, 1\\] bool column"),
])
def test_bad_inputs_are_errors(inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op("split_lod_tensor", inputs, attrs)
