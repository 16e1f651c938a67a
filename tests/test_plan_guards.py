"""A cached plan never runs what a fresh plan refuses (its shape guards).

Plans are cached per feed signature (classes, dtypes, ranks, LoD depths), so
shapes that change between runs must meet the ops' InferShape again: a run
with external shapes the plan has not verified runs each op's inference
before its step, and fails exactly as a fresh Executor would.
"""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import ShapeInferenceError


def _program(build):
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        fetch = build()
    return main, fetch


def _fresh_error(main, feed, fetch) -> str:
    with pytest.raises(ShapeInferenceError) as fresh:
        pir.Executor().run(main, feed=feed, fetch_list=[fetch], scope=pir.Scope())
    return str(fresh.value)


def test_sigmoid_cross_entropy_label_of_another_shape_after_a_good_run():
    def build():
        x = pir.layers.data("x", [-1, 1])
        label = pir.layers.data("label", [-1, 1])
        return pir.layers.sigmoid_cross_entropy_with_logits(x, label)

    main, loss = _program(build)
    exe = pir.Executor()
    x4, label4 = np.zeros((4, 1), np.float32), np.ones((4, 1), np.float32)
    (good,) = exe.run(main, feed={"x": x4, "label": label4}, fetch_list=[loss])
    np.testing.assert_allclose(good, np.full((4, 1), np.log(2.0)), rtol=1e-6)
    bad = {"x": x4, "label": np.ones((1, 1), np.float32)}
    expected = _fresh_error(main, bad, loss)
    assert "Label must have X's shape, got X [4, 1] and Label [1, 1]" in expected
    with pytest.raises(ShapeInferenceError) as cached:
        exe.run(main, feed=bad, fetch_list=[loss])
    assert str(cached.value) == expected
    assert "op #0 sigmoid_cross_entropy_with_logits" in expected
    # The refusal leaves the plan usable, and it still refuses the next time.
    (again,) = exe.run(main, feed={"x": x4, "label": label4}, fetch_list=[loss])
    np.testing.assert_array_equal(again, good)
    with pytest.raises(ShapeInferenceError, match="Label must have X's shape"):
        exe.run(main, feed=bad, fetch_list=[loss])


def test_mul_with_a_second_run_whose_inner_dims_differ():
    def build():
        x = pir.layers.data("x", [-1, 3])
        y = pir.layers.data("y", [-1, 2])
        return pir.layers.mul(x, y)

    main, out = _program(build)
    exe = pir.Executor()
    x, y = np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)
    (first,) = exe.run(main, feed={"x": x, "y": y}, fetch_list=[out])
    np.testing.assert_allclose(first, x @ y)
    bad = {"x": x, "y": np.ones((4, 2), np.float32)}
    expected = _fresh_error(main, bad, out)
    with pytest.raises(ShapeInferenceError) as cached:
        exe.run(main, feed=bad, fetch_list=[out])
    assert str(cached.value) == expected
    assert "op #0 mul" in expected and "X.shape[1] must equal Y.shape[0]" in expected


def test_elementwise_with_an_operand_that_no_longer_broadcasts_after_a_chain():
    """The guard checks ops deep in the block, on the shapes earlier steps produced."""
    def build():
        x = pir.layers.data("x", [-1, 4])
        y = pir.layers.data("y", [-1, 4])
        h = pir.layers.scale(pir.layers.relu(x), 2.0)
        return pir.layers.elementwise_mul(h, y)

    main, out = _program(build)
    exe = pir.Executor()
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    (first,) = exe.run(main, feed={"x": x, "y": np.ones((2, 4), np.float32)}, fetch_list=[out])
    np.testing.assert_allclose(first, 2 * x)
    bad = {"x": x, "y": np.ones((3, 4), np.float32)}
    expected = _fresh_error(main, bad, out)
    with pytest.raises(ShapeInferenceError) as cached:
        exe.run(main, feed=bad, fetch_list=[out])
    assert str(cached.value) == expected
    assert "op #2 elementwise_mul" in expected and "do not broadcast" in expected


def test_new_valid_shapes_are_verified_once_and_then_run_unchecked():
    def build():
        x = pir.layers.data("x", [-1, 3])
        return pir.layers.fc(x, 2)

    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        out = build()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    checks = []
    for batch in (4, 4, 1, 4, 1):
        x = np.ones((batch, 3), np.float32)
        (value,) = exe.run(main, feed={"x": x}, fetch_list=[out], scope=scope)
        assert value.shape == (batch, 2)
        checks.append(len(exe.last_plan.verified))
    assert checks == [1, 1, 2, 2, 2]  # one plan; the last, partial batch verified once
    (signature,) = [s for s in exe.last_plan.verified if s[0] == (1, 3)]
    assert (3, 2) in signature  # the weight's shape is guarded too
