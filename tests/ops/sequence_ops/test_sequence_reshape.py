"""sequence_reshape (ops/sequence_ops/sequence_reshape.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError, ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(29)


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


def test_sequence_reshape():
    x = rng.uniform(-1, 1, (5, 4))
    lengths = [2, 3]
    out = check_op("sequence_reshape", {"X": lod(x, lengths)}, {"new_dim": 2},
                   {"Out": lod(x.reshape(-1, 2), [4, 6])})
    assert out
    check_grad("sequence_reshape", {"X": lod(x, lengths)}, {"new_dim": 1})
    with pytest.raises(PaddleIRError, match="must be a multiple of new_dim 3"):
        check_op("sequence_reshape", {"X": lod(x, lengths)}, {"new_dim": 3})
    with pytest.raises(ProgramError, match="should be larger than 0"):
        check_op("sequence_reshape", {"X": x}, {"new_dim": 2})
