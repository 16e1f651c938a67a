"""sequence_scatter (ops/sequence_ops/sequence_scatter.py)."""

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(29)


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


def test_sequence_scatter():
    x = rng.uniform(-1, 1, (3, 5))
    ids = np.array([[0], [4], [0], [2], [3], [1]], dtype=np.int64)
    upd = rng.uniform(-1, 1, (6, 1))
    lengths = [3, 0, 3]
    want = x.copy()
    j = 0
    for i, n in enumerate(lengths):
        for _ in range(n):
            want[i, ids[j, 0]] += upd[j, 0]
            j += 1
    inputs = {"X": x, "Ids": lod(ids, lengths), "Updates": lod(upd, lengths)}
    check_op("sequence_scatter", inputs, {}, {"Out": want})
    check_grad("sequence_scatter", inputs, wrt=("X", "Updates"))
