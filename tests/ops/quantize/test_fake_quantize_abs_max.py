"""fake_quantize_abs_max against the element-wise reference (ties of both roundings, an
all-zero X, the bit widths); the Paddle fixture `quantize` checks it against Paddle."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op
from tests.ops.quantize.reference import quant_array

rng = np.random.RandomState(26)


def _ties(shape, scale, bits):
    """Values on the half steps of the grid of `scale`, and max |x| == scale."""
    step = np.float32(scale) / np.float32(2 ** (bits - 1) - 1)
    x = ((rng.randint(-40, 40, size=shape) + 0.5) * step).astype(np.float32)
    x.flat[0] = scale
    return x


@pytest.mark.parametrize("round_type", [0, 1])
@pytest.mark.parametrize("bits", [8, 4])
def test_matches_the_reference_on_ties(round_type, bits):
    x = _ties((3, 7), 1.75, bits)
    scale = np.abs(x).max()
    check_op("fake_quantize_abs_max", {"X": x}, {"bit_length": bits, "round_type": round_type},
             {"Out": quant_array(x, scale, bits, round_type),
              "OutScale": np.array([scale], np.float32)}, atol=0, rtol=0)


def test_round_types_differ_on_a_tie():
    x = np.array([2.54, 0.05, -0.07], np.float32)  # 0.05 * 127 / 2.54 = 2.5
    outs = [check_op("fake_quantize_abs_max", {"X": x}, {"round_type": rt})["Out"][0]
            for rt in (0, 1)]
    assert np.asarray(outs[0])[1] == 2 and np.asarray(outs[1])[1] == 3


def test_all_zero_input_quantizes_to_zero():
    x = np.zeros((2, 3), np.float32)
    check_op("fake_quantize_abs_max", {"X": x}, {},
             {"Out": np.zeros((2, 3), np.float32), "OutScale": np.zeros(1, np.float32)})


def test_float64():
    x = rng.randn(4, 5)
    check_op("fake_quantize_abs_max", {"X": x}, {"round_type": 1},
             {"Out": quant_array(x, np.abs(x).max(), 8, 1).astype(np.float64),
              "OutScale": np.array([np.abs(x).max()])}, atol=0, rtol=0)


@pytest.mark.parametrize("attrs, message", [
    ({"bit_length": 1}, "bit_length must be between 2 and 16"),
    ({"round_type": 2}, "round_type must be 0"),
])
def test_errors(attrs, message):
    with pytest.raises(ProgramError, match=message):
        check_op("fake_quantize_abs_max", {"X": np.ones((2, 2), np.float32)}, attrs)
