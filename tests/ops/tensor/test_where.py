"""where, masked_select and index_select (ops/tensor/where.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(31)


# --- where, masked_select, index_select -------------------------------------------------

def test_where():
    cond = rng.rand(3, 4) > 0.5
    x, y = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (1, 4))
    want = np.array([[x[i, j] if cond[i, j] else y[0, j] for j in range(4)] for i in range(3)])
    check_op("where", {"Condition": cond, "X": x, "Y": y}, {}, {"Out": want})
    check_grad("where", {"Condition": cond, "X": x, "Y": y}, wrt=("X", "Y"))
    with pytest.raises(ProgramError, match="Condition must be bool"):
        check_op("where", {"Condition": x, "X": x, "Y": y})
    with pytest.raises(ProgramError, match="do not broadcast"):
        check_op("where", {"Condition": cond, "X": x, "Y": rng.rand(2, 4)})


def test_masked_select():
    x = rng.uniform(-1, 1, (2, 3, 4))
    mask = rng.rand(3, 4) > 0.4
    want = [x[b, i, j] for b in range(2) for i in range(3) for j in range(4) if mask[i, j]]
    check_op("masked_select", {"X": x, "Mask": mask}, {}, {"Y": np.array(want)})
    check_grad("masked_select", {"X": x, "Mask": mask}, out_slot="Y")
    with pytest.raises(ProgramError, match="Mask must be bool"):
        check_op("masked_select", {"X": x, "Mask": x})


def test_index_select():
    x = rng.uniform(-1, 1, (3, 4, 2))
    index = np.array([3, 0, 3, -1], np.int64)
    want = np.stack([x[:, i % 4, :] for i in index], axis=1)
    check_op("index_select", {"X": x, "Index": index}, {"dim": 1}, {"Out": want})
    check_op("index_select", {"X": x, "Index": index[:2].astype(np.int32)}, {"dim": -2},
             {"Out": want[:, :2]})
    check_grad("index_select", {"X": x, "Index": index}, {"dim": 1})  # repeats accumulate
    with pytest.raises(ProgramError, match="Index values must be in \\[-4, 4\\)"):
        check_op("index_select", {"X": x, "Index": np.array([4])}, {"dim": 1})
    with pytest.raises(ProgramError, match="Index must be int32 or int64"):
        check_op("index_select", {"X": x, "Index": np.array([1.0])}, {"dim": 1})
