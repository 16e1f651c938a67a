"""fake_channel_wise_quantize_abs_max against the reference, per channel of axis 0 and 1."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op
from tests.ops.quantize.reference import quant_array

rng = np.random.RandomState(27)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("round_type", [0, 1])
def test_each_channel_has_its_own_scale(axis, round_type):
    x = (rng.randn(4, 3, 2, 2) * rng.uniform(0.1, 3, (4, 1, 1, 1))).astype(np.float32)
    moved = np.moveaxis(x, axis, 0)
    scales = np.array([np.abs(c).max() for c in moved], np.float32)
    out = np.stack([quant_array(c, s, 8, round_type) for c, s in zip(moved, scales, strict=True)])
    check_op("fake_channel_wise_quantize_abs_max", {"X": x},
             {"quant_axis": axis, "round_type": round_type},
             {"Out": np.moveaxis(out, 0, axis), "OutScale": scales}, atol=0, rtol=0)


def test_errors():
    with pytest.raises(ProgramError, match="quant_axis must be 0 or 1, got 2"):
        check_op("fake_channel_wise_quantize_abs_max", {"X": np.ones((2, 2, 2), np.float32)},
                 {"quant_axis": 2})
    with pytest.raises(ProgramError, match="must have a dim 1"):
        check_op("fake_channel_wise_quantize_abs_max", {"X": np.ones(3, np.float32)},
                 {"quant_axis": 1})
