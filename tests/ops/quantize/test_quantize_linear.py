"""quantize_linear and dequantize_linear, per tensor and per channel, against the reference;
a quantize-dequantize pair lands each value on the grid within half a step."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op
from tests.ops.quantize.reference import quant_array

rng = np.random.RandomState(31)


@pytest.mark.parametrize("round_type", [0, 1])
def test_per_tensor(round_type):
    x = (rng.randn(3, 5) * 2).astype(np.float32)
    scale = np.array([1.5], np.float32)
    check_op("quantize_linear", {"X": x, "Scale": scale, "ZeroPoint": np.zeros(1, np.float32)},
             {"quant_axis": -1, "round_type": round_type},
             {"Y": quant_array(x, 1.5, 8, round_type)}, atol=0, rtol=0)


@pytest.mark.parametrize("axis", [0, 1])
def test_per_channel_round_trip(axis):
    x = (rng.randn(4, 6) * 2).astype(np.float32)
    scale = np.abs(x).max(axis=1 - axis).astype(np.float32)
    shape = (-1, 1) if axis == 0 else (1, -1)
    q = quant_array(x, scale.reshape(shape), 8, 0)
    zero = np.zeros_like(scale)
    check_op("quantize_linear", {"X": x, "Scale": scale, "ZeroPoint": zero},
             {"quant_axis": axis}, {"Y": q}, atol=0, rtol=0)
    back = check_op("dequantize_linear", {"X": q, "Scale": scale, "ZeroPoint": zero},
                    {"quant_axis": axis},
                    {"Y": q * scale.reshape(shape) / np.float32(127)})["Y"][0]
    assert np.all(np.abs(np.asarray(back) - x) <= scale.reshape(shape) / 127 / 2 + 1e-6)


def test_int8_dequantize_gives_the_scale_dtype():
    q = np.array([[-128, 5], [127, 0]], np.int8)
    check_op("dequantize_linear", {"X": q, "Scale": np.array([0.5], np.float32),
                                   "ZeroPoint": np.zeros(1, np.float32)},
             {"quant_axis": -1}, {"Y": q.astype(np.float32) * np.float32(0.5) / 127})


def test_training_observes_a_moving_average():
    x = (rng.randn(3, 3)).astype(np.float32)
    accum, state = np.array([2.0], np.float32), np.array([3.0], np.float32)
    new_state = np.float32(0.9) * state + 1
    new_accum = np.float32(0.9) * accum + np.abs(x).max()
    check_op("quantize_linear",
             {"X": x, "Scale": np.ones(1, np.float32), "ZeroPoint": np.zeros(1, np.float32),
              "InAccum": accum, "InState": state},
             {"quant_axis": -1, "is_test": False, "only_observer": True},
             {"Y": x, "OutState": new_state, "OutAccum": new_accum,
              "OutScale": new_accum / new_state},
             outputs={"Y": 1, "OutState": 1, "OutAccum": 1, "OutScale": 1})


def test_errors():
    x = np.ones((4, 6), np.float32)
    with pytest.raises(ProgramError, match=r"one scale per channel of axis 1 \(\[6\]\)"):
        check_op("quantize_linear", {"X": x, "Scale": np.ones(4, np.float32),
                                     "ZeroPoint": np.zeros(4, np.float32)}, {"quant_axis": 1})
    with pytest.raises(ProgramError, match="quant_axis 2 is not an axis"):
        check_op("dequantize_linear", {"X": x, "Scale": np.ones(1, np.float32),
                                       "ZeroPoint": np.zeros(1, np.float32)}, {"quant_axis": 2})
