"""fluid.optimizer.LookaheadOptimizer: the fast and slow weights replayed in numpy on a loss
whose gradient is known (0.5 * |w - t|^2, so SGD's step is w -= lr * (w - t))."""

import numpy as np
import pytest

import paddle_ir.fluid as fluid

START = np.array([0.5, -1.0, 2.0], "float32")
TARGET = np.array([1.0, 0.0, -1.0], "float32")


def _run(steps, alpha, k):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        w = fluid.layers.create_parameter(
            shape=[3], dtype="float32", name="w",
            default_initializer=fluid.initializer.NumpyArrayInitializer(START))
        t = fluid.layers.assign(TARGET)
        loss = 0.5 * fluid.layers.reduce_sum(fluid.layers.square(w - t))
        fluid.optimizer.LookaheadOptimizer(fluid.optimizer.SGD(0.1), alpha=alpha,
                                           k=k).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    got = []
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        for _ in range(steps):
            exe.run(main)
            scope = fluid.global_scope()
            got.append((np.array(scope.find_var("w").get_tensor()),
                        np.array(scope.find_var("w@SLOW").get_tensor())))
    return got


@pytest.mark.parametrize("alpha,k", [(0.5, 3), (0.8, 1), (0.25, 2)])
def test_fast_and_slow_weights_follow_the_rule(alpha, k):
    fast, slow = START.astype("float64"), START.astype("float64")
    for t, (got_fast, got_slow) in enumerate(_run(7, alpha, k), start=1):
        fast = fast - 0.1 * (fast - TARGET)
        if t == 1:
            slow = fast.copy()
        elif t % k == 0:
            slow = alpha * fast + (1 - alpha) * slow
            fast = slow.copy()
        np.testing.assert_allclose(got_fast, fast, rtol=1e-5)
        np.testing.assert_allclose(got_slow, slow, rtol=1e-5)


@pytest.mark.parametrize("kwargs,message", [({"alpha": 1.5}, "alpha must be in"),
                                            ({"k": 0}, "k must be a positive integer"),
                                            ({"k": 2.0}, "k must be a positive integer")])
def test_bad_settings_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fluid.optimizer.LookaheadOptimizer(fluid.optimizer.SGD(0.1), **kwargs)
