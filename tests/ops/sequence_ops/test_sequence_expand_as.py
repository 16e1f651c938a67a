"""sequence_expand_as (ops/sequence_ops/sequence_expand_as.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(29)


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


def test_sequence_expand_as():
    x = rng.uniform(-1, 1, (3, 2))
    lengths = [2, 0, 3]
    want = np.concatenate([np.repeat(x[i:i + 1], n, 0) for i, n in enumerate(lengths)])
    y = lod(np.zeros((5, 1)), lengths)
    check_op("sequence_expand_as", {"X": x, "Y": y}, {}, {"Out": lod(want, lengths)})
    check_grad("sequence_expand_as", {"X": x, "Y": y})
    with pytest.raises(PaddleIRError, match="X has 2 rows but Y's last LoD level has 3"):
        check_op("sequence_expand_as", {"X": x[:2], "Y": y})
