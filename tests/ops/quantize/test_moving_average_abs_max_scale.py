"""moving_average_abs_max_scale: X passes through, the scale is a moving average in
training and kept as loaded in inference; its gradient passes dOut through."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(30)


def test_training_averages_the_abs_max():
    x = rng.randn(4, 3).astype(np.float32)
    accum, state = np.array([0.7], np.float32), np.array([1.9], np.float32)
    new_state = np.float32(0.9) * state + 1
    new_accum = np.float32(0.9) * accum + np.abs(x).max()
    check_op("moving_average_abs_max_scale", {"X": x, "InAccum": accum, "InState": state}, {},
             {"Out": x, "OutScale": new_accum / new_state, "OutState": new_state,
              "OutAccum": new_accum},
             outputs={"Out": 1, "OutScale": 1, "OutState": 1, "OutAccum": 1})


def _inference_program():
    prog = pir.Program()
    block = prog.global_block()
    x = block.create_var(name="x", shape=(2, 2), dtype="float32")
    out = block.create_var(name="out", dtype="float32")
    scale = block.create_var(name="scale", shape=(1,), dtype="float32", persistable=True)
    block.append_op("moving_average_abs_max_scale", inputs={"X": [x]},
                    outputs={"Out": [out], "OutScale": [scale]}, attrs={"is_test": True})
    return prog


def test_inference_keeps_the_loaded_scale():
    scope = pir.Scope()
    scope.var("scale").value = np.array([3.5], np.float32)
    x = np.array([[1.0, -9.0], [2.0, 0.0]], np.float32)
    out, scale = pir.Executor().run(_inference_program(), feed={"x": x},
                                    fetch_list=["out", "scale"], scope=scope)
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(scale, [3.5])


def test_inference_without_a_loaded_scale_says_so():
    with pytest.raises(PaddleIRError, match="OutScale .* has no value to keep"):
        pir.Executor().run(_inference_program(), feed={"x": np.ones((2, 2), np.float32)},
                           fetch_list=["out"], scope=pir.Scope())


def test_gradient_passes_through():
    x = rng.randn(3, 2)
    check_grad("moving_average_abs_max_scale",
               {"X": x, "InAccum": np.ones(1), "InState": np.ones(1)}, {}, wrt=("X",),
               outputs={"Out": 1, "OutScale": 1, "OutState": 1, "OutAccum": 1})
