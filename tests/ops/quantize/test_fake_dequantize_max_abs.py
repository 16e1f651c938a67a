"""fake_dequantize_max_abs and dequantize_abs_max: X * Scale / max_range."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op


def test_fake_dequantize():
    x = np.arange(-6, 6, dtype=np.float32).reshape(3, 4)
    check_op("fake_dequantize_max_abs", {"X": x, "Scale": np.array([2.5], np.float32)},
             {"max_range": 127.0}, {"Out": x * np.float32(2.5) / np.float32(127)})


def test_int8_dequantize():
    x = np.array([[-128, -1, 0, 127]], np.int8)
    check_op("dequantize_abs_max", {"X": x, "Scale": np.array([0.8], np.float32)},
             {"max_range": 127.0},
             {"Out": x.astype(np.float32) * np.float32(0.8) / np.float32(127)})


def test_scale_must_be_one_value():
    with pytest.raises(ProgramError, match=r"Scale must hold one value, got shape \[2\]"):
        check_op("fake_dequantize_max_abs", {"X": np.ones((2, 2), np.float32),
                                             "Scale": np.ones(2, np.float32)},
                 {"max_range": 127.0})
