"""polygon_box_transform against the map written per element."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op


def test_polygon_box_transform():
    x = np.random.RandomState(93).randn(2, 4, 3, 5).astype(np.float32)
    want = np.empty_like(x)
    for g in range(4):
        for h in range(3):
            for w in range(5):
                want[:, g, h, w] = (4 * w if g % 2 == 0 else 4 * h) - x[:, g, h, w]
    check_op("polygon_box_transform", {"Input": x}, {}, {"Output": want})


def test_odd_channels():
    with pytest.raises(ProgramError, match="even number of geometry channels"):
        check_op("polygon_box_transform", {"Input": np.ones((1, 3, 2, 2), np.float32)})
