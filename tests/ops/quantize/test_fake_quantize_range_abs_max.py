"""fake_quantize_range_abs_max: the window of abs-maxes kept in OutScales across runs."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op
from tests.ops.quantize.reference import quant_array


def _program(window):
    prog = pir.Program()
    block = prog.global_block()
    x = block.create_var(name="x", shape=(2, 3), dtype="float32")
    scale = block.create_var(name="scale", shape=(1,), dtype="float32", persistable=True)
    it = block.create_var(name="it", shape=(1,), dtype="int64")
    out = block.create_var(name="out", dtype="float32")
    scales = block.create_var(name="scales", shape=(window,), dtype="float32", persistable=True)
    block.append_op("fake_quantize_range_abs_max",
                    inputs={"X": [x], "InScale": [scale], "Iter": [it]},
                    outputs={"Out": [out], "OutScale": [scale], "OutScales": [scales]},
                    attrs={"window_size": window, "is_test": False})
    return prog


def _reference(maxes, window, first_scale):
    """The scale after each step, from the rule written out."""
    held, scale, seen = [0.0] * window, first_scale, []
    for t, m in enumerate(maxes):
        removed = held[t % window]
        held[t % window] = m
        if scale < m:
            scale = m
        elif abs(removed - scale) < 1e-6:
            scale = max(abs(v) for v in held[:min(t, window)])
        seen.append(scale)
    return seen


def test_the_window_forgets_an_old_maximum():
    window = 3
    maxes = [4.0, 1.0, 2.0, 1.5, 0.5, 3.0, 1.0]
    prog, scope, exe = _program(window), pir.Scope(), pir.Executor()
    scope.var("scale").value = np.array([0.001], np.float32)
    got = []
    for t, m in enumerate(maxes):
        x = np.array([[m, -m / 2, 0.1], [0.2, 0.3, -0.4]], np.float32)
        out, scale = exe.run(prog, feed={"x": x, "it": np.array([t], np.int64)},
                             fetch_list=["out", "scale"], scope=scope)
        got.append(float(scale[0]))
        np.testing.assert_array_equal(out, quant_array(x, scale[0], 8, 1))
    np.testing.assert_allclose(got, _reference(maxes, window, 0.001), rtol=1e-6)
    assert got[2] == 4.0 and got[3] == 2.0  # step 3 overwrote 4.0 and rescanned the window


def test_inference_quantizes_with_in_scale():
    x = np.array([[0.5, -3.0]], np.float32)
    check_op("fake_quantize_range_abs_max", {"X": x, "InScale": np.array([2.0], np.float32)},
             {"is_test": True}, {"Out": quant_array(x, 2.0, 8, 1),
                                 "OutScale": np.array([2.0], np.float32)},
             outputs={"Out": 1, "OutScale": 1})


def test_training_needs_iter():
    with pytest.raises(ProgramError, match="needs input Iter and output OutScales"):
        check_op("fake_quantize_range_abs_max",
                 {"X": np.ones((1, 2), np.float32), "InScale": np.ones(1, np.float32)}, {},
                 outputs={"Out": 1, "OutScale": 1})
