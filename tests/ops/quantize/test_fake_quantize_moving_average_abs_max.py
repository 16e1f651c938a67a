"""fake_quantize_moving_average_abs_max: the moving-average update in training, InScale in
inference."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op
from tests.ops.quantize.reference import quant_array

rng = np.random.RandomState(29)
OUTS = {"Out": 1, "OutScale": 1, "OutState": 1, "OutAccum": 1}


@pytest.mark.parametrize("round_type", [0, 1])
def test_training_updates_the_average_and_quantizes_with_it(round_type):
    x = (rng.randn(3, 4) * 2).astype(np.float32)
    accum, state = np.array([1.5], np.float32), np.array([2.0], np.float32)
    rate = 0.8
    new_state = np.float32(rate) * state + 1
    new_accum = np.float32(rate) * accum + np.abs(x).max()
    scale = new_accum / new_state
    check_op("fake_quantize_moving_average_abs_max",
             {"X": x, "InScale": np.array([9.0], np.float32), "InAccum": accum,
              "InState": state},
             {"moving_rate": rate, "round_type": round_type, "bit_length": 6},
             {"Out": quant_array(x, scale[0], 6, round_type), "OutScale": scale,
              "OutState": new_state, "OutAccum": new_accum}, outputs=OUTS)


def test_inference_uses_in_scale_and_passes_the_statistics_through():
    x = (rng.randn(3, 4) * 2).astype(np.float32)
    accum, state = np.array([1.5], np.float32), np.array([2.0], np.float32)
    check_op("fake_quantize_moving_average_abs_max",
             {"X": x, "InScale": np.array([1.2], np.float32), "InAccum": accum,
              "InState": state}, {"is_test": True},
             {"Out": quant_array(x, 1.2, 8, 1), "OutScale": np.array([1.2], np.float32),
              "OutState": state, "OutAccum": accum}, outputs=OUTS)


def test_training_needs_the_statistics():
    with pytest.raises(ProgramError, match="needs input"):
        check_op("fake_quantize_moving_average_abs_max",
                 {"X": np.ones((2, 2), np.float32), "InScale": np.ones(1, np.float32)}, {},
                 outputs={"Out": 1, "OutScale": 1})
