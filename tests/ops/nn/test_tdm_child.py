"""tdm_child against a per-id loop written from Paddle's TDMChildInner, and Paddle 3.3.1's
own output on a small tree (tests/fixtures/paddle/search_ops/tdm_child.npz, made by
tools/make_paddle_fixtures.py)."""

import json

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError, ShapeInferenceError
from tests.op_test import check_op
from tests.paddle_helpers import FIXTURES

TREE = np.array([[0, 0, 0, 1, 2], [0, 1, 0, 3, 4], [0, 1, 0, 5, 0], [0, 2, 1, 6, 7],
                 [0, 2, 1, 0, 0], [0, 2, 2, 8, 0], [1, 3, 3, 0, 0], [0, 3, 3, 0, 0],
                 [2, 3, 5, 0, 0]])


def ref_tdm_child(ids, tree, child_nums):
    child = np.zeros(ids.shape + (child_nums,), np.int64)
    mask = np.zeros_like(child)
    for index in np.ndindex(ids.shape):
        n = int(ids[index])
        if n == 0 or tree[n, 3] == 0:
            continue
        for c in range(child_nums):
            child[index + (c,)] = tree[n, 3 + c]
            mask[index + (c,)] = 1 if tree[tree[n, 3 + c], 0] != 0 else 0
    return child, mask


@pytest.mark.parametrize("id_dtype, info_dtype, out_code", [
    (np.int64, np.int32, 2), (np.int32, np.int64, 3), (np.int64, np.int64, 3)])
def test_matches_the_reference(id_dtype, info_dtype, out_code):
    ids = np.array([[0, 1, 2], [3, 4, 5], [6, 8, 7]], id_dtype)
    want_child, want_mask = ref_tdm_child(ids, TREE, 2)
    out_dtype = np.int32 if out_code == 2 else np.int64
    check_op("tdm_child", {"X": ids, "TreeInfo": TREE.astype(info_dtype)},
             {"child_nums": 2, "dtype": out_code},
             {"Child": want_child.astype(out_dtype), "LeafMask": want_mask.astype(out_dtype)})


def test_keeps_the_lod_of_x():
    ids = pir.create_lod_tensor(np.array([[1], [3], [5]], np.int64), [[2, 1]])
    result = check_op("tdm_child", {"X": ids, "TreeInfo": TREE}, {"child_nums": 2})
    assert result["Child"][0].lod() == [[0, 2, 3]]
    assert result["Child"][0].numpy().tolist() == [[[3, 4]], [[6, 7]], [[8, 0]]]


def test_matches_paddle():
    case = np.load(FIXTURES / "search_ops" / "tdm_child.npz", allow_pickle=False)
    check_op("tdm_child", {"X": case["X"], "TreeInfo": case["TreeInfo"]},
             json.loads(str(case["attrs"])),
             {"Child": case["Child"], "LeafMask": case["LeafMask"]})


def test_rejects_ids_outside_the_tree_and_bad_children():
    with pytest.raises(KernelError, match=r"X's node ids must be in \[0, 9\).*got 9"):
        check_op("tdm_child", {"X": np.array([1, 9]), "TreeInfo": TREE}, {"child_nums": 2})
    with pytest.raises(KernelError, match=r"X's node ids must be in \[0, 9\).*got -1"):
        check_op("tdm_child", {"X": np.array([-1]), "TreeInfo": TREE}, {"child_nums": 2})
    broken = TREE.copy()
    broken[1, 4] = 40
    with pytest.raises(KernelError, match=r"TreeInfo's child ids must be in \[0, 9\), got 40"):
        check_op("tdm_child", {"X": np.array([1]), "TreeInfo": broken}, {"child_nums": 2})


@pytest.mark.parametrize("inputs, attrs, message", [
    ({"X": np.array([1]), "TreeInfo": TREE}, {"child_nums": 3},
     r"TreeInfo must be \[node_nums, 3 \+ child_nums\] = \[\?, 6\].*got \[9, 5\]"),
    ({"X": np.array([1]), "TreeInfo": TREE}, {"child_nums": 0}, r"child_nums must be > 0"),
    ({"X": np.array([1]), "TreeInfo": TREE}, {"child_nums": 2, "dtype": 5},
     r"dtype must be 2 \(int32\) or 3 \(int64\), got 5"),
    ({"X": np.array([1.0]), "TreeInfo": TREE}, {"child_nums": 2},
     r"X must be int32 or int64, got float64"),
])
def test_rejects_bad_shapes_and_attributes(inputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=message):
        check_op("tdm_child", inputs, attrs)
