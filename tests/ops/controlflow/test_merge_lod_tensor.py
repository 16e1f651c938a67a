"""merge_lod_tensor (ops/controlflow/merge_lod_tensor.py) against a nested-list model,
and as split_lod_tensor's inverse."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op
from tests.ops.controlflow.lod_items import tensor_of

rng = np.random.RandomState(13)
LOD = [[0, 2, 3, 5], [0, 1, 3, 3, 6, 7]]


def _branch(items, levels):
    data, lod = tensor_of(items, levels, (2,), np.float64)
    return pir.LoDTensor(data, lod) if levels else data


def _random_items(n, levels):
    """n items, each with 0-2 sub-items per level (rows of 2 floats at the bottom)."""
    def item(k):
        if k == levels:
            return rng.uniform(-1, 1, 2)
        return [item(k + 1) for _ in range(rng.randint(0 if k else 1, 3))]
    return [item(0) for _ in range(n)]


@pytest.mark.parametrize("levels", [0, 1, 2])
@pytest.mark.parametrize("mask", [[True, False, True, True, False], [False] * 3, [True]])
def test_matches_the_nested_list_model(levels, mask):
    true_items = _random_items(sum(mask), levels)
    false_items = _random_items(len(mask) - sum(mask), levels)
    ti, fi = iter(true_items), iter(false_items)
    merged = [next(ti) if m else next(fi) for m in mask]
    want_data, want_lod = tensor_of(merged, levels, (2,), np.float64)
    x = np.zeros((len(mask), 1))  # level 0: X lends no LoD
    got = check_op("merge_lod_tensor", {"X": x, "Mask": np.array(mask).reshape(-1, 1),
                                        "InTrue": _branch(true_items, levels),
                                        "InFalse": _branch(false_items, levels)})
    (out,) = got["Out"]
    np.testing.assert_array_equal(np.array(out), want_data)
    assert out.lod() == want_lod


@pytest.mark.parametrize("level, mask", [(0, [True, False, True]),
                                         (1, [False, True, True, False, True]),
                                         (1, [True] * 5)])
def test_undoes_split_lod_tensor(level, mask):
    data = rng.uniform(-1, 1, (7, 2))
    x = pir.LoDTensor(data, LOD)
    m = np.array(mask).reshape(-1, 1)
    parts = check_op("split_lod_tensor", {"X": x, "Mask": m}, {"level": level})
    got = check_op("merge_lod_tensor", {"X": x, "Mask": m, "InTrue": parts["OutTrue"][0],
                                        "InFalse": parts["OutFalse"][0]}, {"level": level})
    (out,) = got["Out"]
    np.testing.assert_array_equal(np.array(out), data)
    assert out.lod() == LOD


def test_gradient_is_split_back():
    mask = np.array([[True], [False], [True]])
    check_grad("merge_lod_tensor", {
        "X": np.zeros((3, 1)), "Mask": mask,
        "InTrue": pir.LoDTensor(rng.uniform(-1, 1, (4, 2)), [[0, 1, 4]]),
        "InFalse": pir.LoDTensor(rng.uniform(-1, 1, (2, 2)), [[0, 2]])},
        wrt=("InTrue", "InFalse"))


MASK3 = np.array([[True], [False], [True]])


@pytest.mark.parametrize("inputs, attrs, match", [
    ({"X": np.zeros((3, 1)), "Mask": MASK3, "InTrue": np.ones((1, 2)),
      "InFalse": np.ones((1, 2))}, {},
     "merge_lod_tensor: the mask selects 2 items of InTrue, but it holds 1"),
    ({"X": np.zeros((3, 1)), "Mask": MASK3, "InTrue": np.ones((2, 2)),
      "InFalse": np.ones((1, 3))}, {}, "must agree in all but the first dim"),
    ({"X": np.zeros((3, 1)), "Mask": MASK3, "InTrue": np.ones((2, 2)),
      "InFalse": np.ones((1, 2))}, {"level": 1},
     "merge_lod_tensor: level 1 needs X to have at least 1 LoD level"),
    ({"X": pir.LoDTensor(np.zeros((2, 1)), [[0, 1, 2]]), "Mask": MASK3,
      "InTrue": np.ones((2, 2)), "InFalse": np.ones((1, 2))}, {"level": 1},
     "merge_lod_tensor: X's LoD above level 1 does not fit the merged items"),
])
def test_bad_inputs_are_errors(inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op("merge_lod_tensor", inputs, attrs)
