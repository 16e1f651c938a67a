"""fake_channel_wise_dequantize_max_abs with one scale tensor (axis 0, 1) and two."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op

rng = np.random.RandomState(28)


@pytest.mark.parametrize("axis", [0, 1])
def test_one_scale_per_channel(axis):
    x = rng.randint(-127, 128, (3, 4, 2)).astype(np.float32)
    scales = rng.uniform(0.5, 2, x.shape[axis]).astype(np.float32)
    want = np.empty_like(x)
    for c in range(x.shape[axis]):
        index = (slice(None),) * axis + (c,)
        want[index] = x[index] * scales[c] / 127
    check_op("fake_channel_wise_dequantize_max_abs", {"X": x, "Scales": [("s0", scales)]},
             {"quant_bits": [8], "quant_axis": axis}, {"Out": want})


def test_two_scales_weights_times_activation():
    x = rng.randint(-300, 300, (2, 5, 3)).astype(np.float32)
    w_scales = rng.uniform(0.5, 2, 5).astype(np.float32)
    act = np.array([1.3], np.float32)
    want = x * w_scales[None, :, None] * act[0] / (127 * 7)
    check_op("fake_channel_wise_dequantize_max_abs",
             {"X": x, "Scales": [("s0", w_scales), ("s1", act)]},
             {"quant_bits": [8, 4], "x_num_col_dims": 1}, {"Out": want})


def test_errors():
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ProgramError, match=r"one scale per channel, \[3\]"):
        check_op("fake_channel_wise_dequantize_max_abs",
                 {"X": x, "Scales": [("s0", np.ones(4, np.float32))]}, {"quant_bits": [8]})
    with pytest.raises(ProgramError, match="one bit count per Scales tensor"):
        check_op("fake_channel_wise_dequantize_max_abs",
                 {"X": x, "Scales": [("s0", np.ones(3, np.float32))]}, {"quant_bits": [8, 8]})
