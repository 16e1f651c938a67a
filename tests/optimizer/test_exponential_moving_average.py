"""fluid.optimizer.ExponentialMovingAverage: the bias-corrected EMA of the parameters seen
inside apply(), replayed here in numpy on the parameters fetched after each step."""

import numpy as np
import pytest

import paddle_ir.fluid as fluid


def _train(steps, decay=0.9, thres=False, applies=1):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        y = fluid.data(name="y", shape=[None, 1], dtype="float32")
        pred = fluid.layers.fc(input=x, size=1,
                               bias_attr=fluid.ParamAttr(do_model_average=False))
        loss = fluid.layers.mean(fluid.layers.square_error_cost(input=pred, label=y))
        fluid.optimizer.SGD(learning_rate=0.1).minimize(loss)
        global_step = fluid.layers.autoincreased_step_counter(begin=0) if thres else None
        ema = fluid.optimizer.ExponentialMovingAverage(decay, thres_steps=global_step)
        ema.update()
    exe = fluid.Executor(fluid.CPUPlace())
    rng = np.random.RandomState(0)
    history, seen = [], []
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        for _ in range(steps):
            xs = rng.rand(4, 3).astype("float32")
            exe.run(main, feed={"x": xs, "y": xs.sum(axis=1, keepdims=True)})
            history.append(np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor()))
        for _ in range(applies):
            with ema.apply(exe):
                seen.append(np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor()))
        restored = np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor())
    return history, seen, restored


def _reference(history, decay, thres):
    ema = 0.0
    for t, p in enumerate(history):
        d = min(decay, (t + 1.0) / (t + 10.0)) if thres else decay
        d = float(np.float32(d))
        ema = d * ema + (1 - d) * p
    t = len(history)
    return ema / (1 - d ** t) if t else ema


@pytest.mark.parametrize("steps,thres", [(1, False), (5, False), (6, True)])
def test_apply_gives_the_bias_corrected_average_and_restore_undoes_it(steps, thres):
    history, seen, restored = _train(steps, thres=thres)
    np.testing.assert_allclose(seen[0], _reference(history, 0.9, thres), rtol=2e-5)
    np.testing.assert_array_equal(restored, history[-1])
    if steps > 1:
        assert not np.allclose(seen[0], history[-1], rtol=1e-3)  # an average, not the last


def test_a_second_apply_sees_the_same_average():
    """Fluid 1.8 divided the EMA itself in place, correcting twice; here it is kept."""
    history, seen, _ = _train(4, applies=2)
    np.testing.assert_array_equal(seen[0], seen[1])


def test_update_twice_and_bad_decay_are_refused():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 2], dtype="float32")
        fluid.layers.fc(input=x, size=1)
        with pytest.raises(ValueError, match="decay must be in"):
            fluid.optimizer.ExponentialMovingAverage(1.5)
        ema = fluid.optimizer.ExponentialMovingAverage(0.5)
        ema.update()
        with pytest.raises(ValueError, match="already called"):
            ema.update()
