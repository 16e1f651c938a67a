"""fake_quantize_dequantize_moving_average_abs_max: the moving-average quantization mapped
back to X's units, and its straight-through gradient."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op
from tests.ops.quantize.reference import bins, quant_array

OP = "fake_quantize_dequantize_moving_average_abs_max"
OUTS = {"Out": 1, "OutScale": 1, "OutState": 1, "OutAccum": 1}
X = np.array([[-1.3, 0.2, 0.55, 2.0, -0.004], [0.9, -2.5, 1.1, 0.0, 3.0]], np.float32)
STATS = {"InScale": np.array([1.0], np.float32), "InState": np.array([2.0], np.float32),
         "InAccum": np.array([3.0], np.float32)}


def test_paddles_values_in_training():
    # PaddlePaddle 3.3.1 (legacy static mode) gave these for X and STATS, moving_rate 0.9.
    check_op(OP, {"X": X, **STATS}, {"moving_rate": 0.9}, {
        "Out": np.array([[-1.2983689, 0.19235094, 0.5449943, 2.0036557, -0.0],
                         [0.8976377, -2.0357141, 1.106018, 0.0, 2.0357141]], np.float32),
        "OutScale": np.array([2.0357141], np.float32),
        "OutState": np.array([2.8], np.float32), "OutAccum": np.array([5.7], np.float32)},
        outputs=OUTS)


@pytest.mark.parametrize("round_type, bits", [(0, 8), (1, 8), (1, 4)])
def test_inference_dequantizes_with_in_scale(round_type, bits):
    x = (np.random.RandomState(bits + round_type).randn(3, 4) * 2).astype(np.float32)
    scale = np.float32(1.7)
    want = quant_array(x, scale, bits, round_type) * scale / np.float32(bins(bits))
    check_op(OP, {"X": x, **STATS, "InScale": np.array([scale])},
             {"is_test": True, "round_type": round_type, "bit_length": bits},
             {"Out": want, "OutScale": np.array([scale]), "OutState": STATS["InState"],
              "OutAccum": STATS["InAccum"]}, outputs=OUTS, rtol=1e-6)


def test_the_gradient_passes_straight_through():
    d = np.random.RandomState(4).uniform(-1, 1, (2, 5)).astype(np.float32)
    check_op(OP + "_grad", {"Out@GRAD": d}, expected={"X@GRAD": d}, outputs={"X@GRAD": 1})


def test_the_gradient_through_a_program_is_paddles():
    # Paddle 3.3.1: d/dX sum(Out * W) = W, also where X is clipped (-2.5 and 3.0).
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [2, 5], append_batch_size=False)
        x.stop_gradient = False
        w = layers.data("w", [2, 5], append_batch_size=False)
        stats = {k: layers.data(k, [1], append_batch_size=False) for k in STATS}
        block = main.global_block()
        outs = {k: block.create_var(name=k.lower(), dtype="float32") for k in OUTS}
        block.append_op(OP, inputs={"X": [x], **{k: [v] for k, v in stats.items()}},
                        outputs={k: [v] for k, v in outs.items()}, attrs={"moving_rate": 0.9})
        loss = layers.reduce_sum(outs["Out"] * w)
        pir.append_backward(loss)
    w_value = np.arange(10, dtype=np.float32).reshape(2, 5)
    exe = pir.Executor()
    for _ in range(2):  # the second run reuses the plan the first cached
        (dx,) = exe.run(main, feed={"x": X, "w": w_value, **STATS}, fetch_list=["x@GRAD"])
        np.testing.assert_array_equal(dx, w_value)


def test_training_needs_the_statistics():
    with pytest.raises(ProgramError, match="training \\(is_test False\\) needs inputs "
                                           "InAccum and InState"):
        check_op(OP, {"X": X, "InScale": STATS["InScale"]})
