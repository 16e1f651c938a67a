"""filter_by_instag (ops/sequence_ops/filter_by_instag.py)."""

import numpy as np
import pytest

from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(79)


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


@pytest.mark.parametrize("is_lod", [True, False])
def test_filter_by_instag(is_lod):
    lengths = [2, 1, 3] if is_lod else [1, 1, 1]
    ins = rng.uniform(-1, 1, (sum(lengths), 2))
    tags = lod(np.array([[1], [5], [2], [3], [7]], np.int64), [2, 1, 2])
    filt = np.array([5, 7], np.int64)
    keep = [0, 2]  # instance 0 has tag 5, instance 2 has tag 7
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    rows = np.concatenate([np.arange(starts[i], starts[i] + lengths[i]) for i in keep])
    out_len = [lengths[i] for i in keep]
    index_map = np.array([[sum(out_len[:j]), starts[i], lengths[i]]
                          for j, i in enumerate(keep)], np.int64)
    ins_v = lod(ins, lengths) if is_lod else ins
    per = [1, 1]
    inputs = {"Ins": ins_v, "Ins_tag": tags, "Filter_tag": filt}
    check_op("filter_by_instag", inputs, {"is_lod": is_lod},
             {"Out": lod(ins[rows], out_len), "LossWeight": lod(np.ones((2, 1), np.float32), per),
              "IndexMap": lod(index_map, per)})
    check_grad("filter_by_instag", inputs, {"is_lod": is_lod}, wrt=("Ins",))


def test_filter_by_instag_keeps_nothing():
    ins = lod(rng.uniform(-1, 1, (3, 2)), [1, 2])
    tags = lod(np.array([[1], [2]], np.int64), [1, 1])
    check_op("filter_by_instag", {"Ins": ins, "Ins_tag": tags,
                                  "Filter_tag": np.array([9], np.int64)},
             {"out_val_ifempty": 4},
             {"Out": lod(np.full((1, 2), 4.0), [1]),
              "LossWeight": lod(np.zeros((1, 1), np.float32), [1]),
              "IndexMap": lod(np.array([[0, 1, 1]], np.int64), [1])})
