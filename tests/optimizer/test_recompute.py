"""fluid.optimizer.RecomputeOptimizer: trains exactly as its inner optimizer (recomputing
activations never changes a gradient) and checks its checkpoints as Fluid does."""

import numpy as np
import pytest

import paddle_ir.fluid as fluid


def _train(wrap, steps=3):
    main, startup = fluid.Program(), fluid.Program()
    startup.random_seed = 7  # the same initial weights in both programs
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 4], dtype="float32")
        h = fluid.layers.fc(input=x, size=5, act="tanh")
        out = fluid.layers.fc(input=h, size=1)
        loss = fluid.layers.mean(fluid.layers.square(out))
        opt = fluid.optimizer.Adam(0.05)
        if wrap:
            opt = fluid.optimizer.RecomputeOptimizer(opt)
            opt._set_checkpoints([h])
        opt.minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    rng = np.random.RandomState(1)
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        for _ in range(steps):
            exe.run(main, feed={"x": rng.rand(6, 4).astype("float32")})
        return {n: np.array(fluid.global_scope().find_var(n).get_tensor())
                for n in ("fc_0.w_0", "fc_1.w_0")}


def test_trains_exactly_as_the_inner_optimizer():
    wrapped, plain = _train(True), _train(False)
    for name in plain:
        np.testing.assert_array_equal(wrapped[name], plain[name])
    assert not np.array_equal(_train(True, steps=0)["fc_0.w_0"], wrapped["fc_0.w_0"])


def test_checkpoints_must_be_set_and_belong_to_the_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 2], dtype="float32")
        loss = fluid.layers.mean(fluid.layers.fc(input=x, size=1))
        opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))
        with pytest.raises(ValueError, match="_set_checkpoints"):
            opt.minimize(loss)
        opt._set_checkpoints(["no_such_var"])
        with pytest.raises(ValueError, match="no_such_var"):
            opt.minimize(loss)
        with pytest.raises(TypeError, match="list of Variables"):
            opt._set_checkpoints("fc_0.tmp_0")
