"""dequantize_log (ops/quantize/dequantize_log.py): a table lookup with the code's sign."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op

TABLE = (np.arange(128, dtype=np.float32) * 0.25 + 1).astype(np.float32)


def _reference(codes, table):
    out = np.empty(codes.shape, np.float32)
    for k, c in np.ndenumerate(codes):
        out[k] = -table[int(c) + 128] if c < 0 else table[int(c)]
    return out


def test_paddles_values():
    # PaddlePaddle 3.3.1 (legacy static mode) gave these for the same X and Dict.
    x = np.array([[-128, -1, 0, 127], [5, -5, 64, -64]], np.int8)
    check_op("dequantize_log", {"X": x, "Dict": TABLE},
             expected={"Out": np.array([[-1.0, -32.75, 1.0, 32.75],
                                        [2.25, -31.75, 17.0, -17.0]], np.float32)})


def test_every_code_against_the_reference():
    codes = np.arange(-128, 128, dtype=np.int8).reshape(16, 16)
    table = np.random.RandomState(3).uniform(0, 10, 128).astype(np.float32)
    got = check_op("dequantize_log", {"X": codes, "Dict": table},
                   expected={"Out": _reference(codes, table)})
    assert np.array(got["Out"][0]).dtype == np.float32


def test_keeps_the_lod():
    x = pir.LoDTensor(np.array([[1], [-2], [3]], np.int8), [[0, 1, 3]])
    got = check_op("dequantize_log", {"X": x, "Dict": TABLE})
    assert got["Out"][0].lod() == [[0, 1, 3]]


def test_a_short_dict_is_an_error():
    with pytest.raises(PaddleIRError, match="dequantize_log: X holds a code that needs Dict "
                                            "entry 127, but Dict has 64 entries"):
        check_op("dequantize_log", {"X": np.array([-1], np.int8), "Dict": TABLE[:64]})
