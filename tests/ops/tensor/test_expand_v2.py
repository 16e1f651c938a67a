"""expand_v2, expand_as_v2 and tile (ops/tensor/expand_v2.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(31)


# --- expand_v2, expand_as_v2, tile ------------------------------------------------------

def test_expand_v2():
    x = rng.uniform(-1, 1, (3, 1)).astype("float32")
    want = np.empty((2, 3, 4), np.float32)
    for b in range(2):
        for j in range(4):
            want[b, :, j] = x[:, 0]
    check_op("expand_v2", {"X": x}, {"shape": [2, -1, 4]}, {"Out": want})
    check_op("expand_v2", {"X": x, "Shape": np.array([2, 3, 4], np.int32)}, {}, {"Out": want})
    parts = [("s0", np.array([2], np.int64)), ("s1", np.array([3], np.int64)),
             ("s2", np.array([4], np.int64))]
    check_op("expand_v2", {"X": x, "expand_shapes_tensor": parts}, {}, {"Out": want})
    check_grad("expand_v2", {"X": rng.uniform(-1, 1, (3, 1))}, {"shape": [2, 3, 4]})
    with pytest.raises(ProgramError, match="dim 0 of X \\[3, 1\\] is 3: it must be 1 or 5"):
        check_op("expand_v2", {"X": x}, {"shape": [5, 4]})
    with pytest.raises(ProgramError, match="fewer dims than X"):
        check_op("expand_v2", {"X": x}, {"shape": [4]})


def test_expand_as_v2():
    x = rng.uniform(-1, 1, (1, 4)).astype("float32")
    y = np.zeros((3, 2, 4), np.float32)
    want = np.stack([np.vstack([x, x])] * 3)
    check_op("expand_as_v2", {"X": x, "Y": y}, {}, {"Out": want})
    check_op("expand_as_v2", {"X": x}, {"target_shape": [3, 2, 4]}, {"Out": want})
    check_grad("expand_as_v2", {"X": rng.uniform(-1, 1, (1, 4))},
               {"target_shape": [3, 2, 4]})


def test_tile():
    x = rng.uniform(-1, 1, (2, 3)).astype("float32")
    want = np.vstack([np.hstack([x, x])] * 2)
    check_op("tile", {"X": x}, {"repeat_times": [2, 2]}, {"Out": want})
    check_op("tile", {"X": x}, {"repeat_times": [3, 1, 2]},
             {"Out": np.stack([np.hstack([x, x])] * 3)})
    check_op("tile", {"X": x}, {"repeat_times": [2]}, {"Out": np.hstack([x, x])})
    check_op("tile", {"X": x, "RepeatTimes": np.array([2, 2], np.int32)}, {}, {"Out": want})
    check_grad("tile", {"X": rng.uniform(-1, 1, (2, 3))}, {"repeat_times": [2, 1, 3]})
    with pytest.raises(ProgramError, match="repeat_times must be >= 1"):
        check_op("tile", {"X": x}, {"repeat_times": [0, 1]})
