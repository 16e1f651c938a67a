"""fluid.optimizer.ModelAverage as the OCR model uses it: the parameters seen during
evaluation are the average over the current and the last finished window of training
steps; checked against the window rule simulated here on the fetched parameters."""

import numpy as np
import pytest

import paddle_ir.fluid as fluid


def expected_average(history, rate, min_window, max_window):
    """Replay the window rule on the parameter values after each step."""
    sums, old_sum, n_acc, old_n, n_upd = 0.0, 0.0, 0, 0, 0
    for p in history:
        n_upd += 1
        n_acc += 1
        sums = sums + p
        if n_acc >= min_window and n_acc >= min(max_window, n_upd * rate):
            old_sum, sums, old_n, n_acc = sums, 0.0, n_acc, 0
    return (sums + old_sum) / (n_acc + old_n)


@pytest.mark.parametrize("steps", [2, 7, 12])
def test_apply_averages_over_the_window_and_restores(steps):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        y = fluid.data(name="y", shape=[None, 1], dtype="float32")
        pred = fluid.layers.fc(input=x, size=1,
                               bias_attr=fluid.ParamAttr(do_model_average=False))
        loss = fluid.layers.mean(fluid.layers.square_error_cost(input=pred, label=y))
        fluid.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(loss)
        average = fluid.optimizer.ModelAverage(0.5, min_average_window=3, max_average_window=5)
    assert [p.name for p in average.params] == ["fc_0.w_0"]  # the bias opted out
    exe = fluid.Executor(fluid.CPUPlace())
    rng = np.random.RandomState(0)
    history = []
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        for _ in range(steps):
            xs = rng.rand(8, 3).astype("float32")
            exe.run(main, feed={"x": xs, "y": xs.sum(axis=1, keepdims=True)})
            history.append(np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor()))
        trained = history[-1]
        probe = np.eye(3, dtype="float32")
        with average.apply(exe):
            averaged = np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor())
            seen = exe.run(main.clone(for_test=True), feed={"x": probe, "y": np.zeros((3, 1),
                                                                                      "float32")},
                           fetch_list=[pred])[0]
        restored = np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor())
        bias = np.array(fluid.global_scope().find_var("fc_0.b_0").get_tensor())
    want = expected_average(history, 0.5, 3, 5)
    np.testing.assert_allclose(averaged, want, rtol=1e-5)
    np.testing.assert_allclose(seen, want + bias, rtol=1e-5)
    np.testing.assert_array_equal(restored, trained)
    if steps > 3:
        assert not np.allclose(want, np.mean(history, axis=0))  # a window, not all steps


def test_apply_without_restore_keeps_the_average_until_restore():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 2], dtype="float32")
        loss = fluid.layers.mean(fluid.layers.fc(input=x, size=1, bias_attr=False))
        fluid.optimizer.SGD(learning_rate=0.5).minimize(loss)
        average = fluid.optimizer.ModelAverage(1.0, min_average_window=100,
                                               max_average_window=100)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        w0 = np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor())
        for _ in range(4):
            exe.run(main, feed={"x": np.ones((2, 2), "float32")})
        # SGD on mean(x @ w) moves w by -0.5 each step: w0-0.5, ..., w0-2.0, mean w0-1.25
        with average.apply(exe, need_restore=False):
            pass
        w = np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor())
        np.testing.assert_allclose(w, w0 - 1.25, rtol=1e-6)
        average.restore(exe)
        np.testing.assert_allclose(
            np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor()), w0 - 2.0,
            rtol=1e-6)
