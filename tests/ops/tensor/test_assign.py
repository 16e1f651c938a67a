"""assign (ops/tensor/assign.py): Out is X, on every path, and so is the gradient."""

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(61)


def test_assign_copies_values_and_lod():
    x = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    check_op("assign", {"X": x}, {}, {"Out": x})
    seq = LoDTensor(x, [[0, 1, 4]])
    check_op("assign", {"X": seq}, {}, {"Out": LoDTensor(x, [[0, 1, 4]])})
    check_op("assign", {"X": np.arange(5, dtype=np.int64)}, {},
             {"Out": np.arange(5, dtype=np.int64)})
    check_grad("assign", {"X": x})
