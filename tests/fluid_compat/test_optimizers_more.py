"""RMSProp (plain and centered, with momentum), Adamax and DecayedAdagrad, as Fluid's
API docs and models construct them, checked step by step against the update rules
written out here in numpy on a loss whose gradient is known (0.5 * |w - t|^2)."""

import numpy as np
import pytest

import paddle_ir.fluid as fluid

START = np.array([0.5, -1.0, 2.0, 0.1], "float32")
TARGET = np.array([1.0, 1.0, -1.0, 0.0], "float32")
LR = 0.05


def rmsprop(rho=0.95, eps=1e-6, momentum=0.0, centered=False):
    ms = mg = mom = 0.0

    def step(w, g):
        nonlocal ms, mg, mom
        ms = rho * ms + (1 - rho) * g * g
        if centered:
            mg = rho * mg + (1 - rho) * g
            mom = momentum * mom + LR * g / np.sqrt(ms - mg * mg + eps)
        else:
            mom = momentum * mom + LR * g / np.sqrt(ms + eps)
        return w - mom
    return step


def adamax(b1=0.9, b2=0.999, eps=1e-8):
    m = u = 0.0
    t = 0

    def step(w, g):
        nonlocal m, u, t
        t += 1
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u + eps, np.abs(g))
        return w - LR / (1 - b1 ** t) * m / u
    return step


def decayed_adagrad(decay=0.95, eps=1e-6):
    m = 0.0

    def step(w, g):
        nonlocal m
        m = decay * m + (1 - decay) * g * g
        return w - LR * g / (np.sqrt(m) + eps)
    return step


def lars_momentum(mu=0.9, coeff=0.001, decay=0.0005):
    v = 0.0

    def step(w, g):
        nonlocal v
        p_norm, g_norm = np.linalg.norm(w), np.linalg.norm(g)
        local = (LR * coeff * p_norm / (g_norm + decay * p_norm)
                 if decay > 0 and p_norm > 0 and g_norm > 0 else LR)
        v = mu * v + local * (g + decay * w)
        return w - v
    return step


def adadelta(rho=0.95, eps=1e-6):
    eg = ex = 0.0

    def step(w, g):
        nonlocal eg, ex
        eg = rho * eg + (1 - rho) * g * g
        update = -np.sqrt((ex + eps) / (eg + eps)) * g
        ex = rho * ex + (1 - rho) * update * update
        return w + update  # Fluid's op reads no learning rate
    return step


CASES = [
    (lambda: fluid.optimizer.RMSPropOptimizer(learning_rate=LR), rmsprop()),
    (lambda: fluid.optimizer.RMSProp(LR, rho=0.9, epsilon=1e-4, momentum=0.5, centered=True),
     rmsprop(rho=0.9, eps=1e-4, momentum=0.5, centered=True)),
    (lambda: fluid.optimizer.AdamaxOptimizer(learning_rate=LR, beta1=0.8), adamax(b1=0.8)),
    (lambda: fluid.optimizer.DecayedAdagradOptimizer(learning_rate=LR, decay=0.9),
     decayed_adagrad(decay=0.9)),
    (lambda: fluid.optimizer.LarsMomentumOptimizer(learning_rate=LR, momentum=0.9),
     lars_momentum()),
    (lambda: fluid.optimizer.LarsMomentum(LR, momentum=0.5, lars_coeff=0.5,
                                          lars_weight_decay=0.01),
     lars_momentum(mu=0.5, coeff=0.5, decay=0.01)),
    (lambda: fluid.optimizer.LarsMomentum(LR, momentum=0.5, lars_weight_decay=0.0),
     lars_momentum(mu=0.5, decay=0.0)),  # no weight decay: the plain learning rate
    (lambda: fluid.optimizer.AdadeltaOptimizer(learning_rate=LR), adadelta()),
    (lambda: fluid.optimizer.Adadelta(LR, epsilon=1e-2, rho=0.5), adadelta(rho=0.5, eps=1e-2)),
]


@pytest.mark.parametrize(("make", "reference"), CASES)
def test_update_rule_matches_numpy(make, reference):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        w = fluid.layers.create_parameter(
            shape=[4], dtype="float32", name="w",
            default_initializer=fluid.initializer.NumpyArrayInitializer(START))
        t = fluid.layers.assign(TARGET)
        loss = 0.5 * fluid.layers.reduce_sum(fluid.layers.square(w - t))
        make().minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    want = START.astype("float64")
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        losses = []
        for _ in range(30):
            losses.append(float(exe.run(main, fetch_list=[loss])[0]))
            want = reference(want, want - TARGET)
            got = np.array(fluid.global_scope().find_var("w").get_tensor())
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
    assert losses[-1] < losses[0]


def test_bad_rmsprop_settings_are_named():
    with pytest.raises(ValueError, match="rho must be in"):
        fluid.optimizer.RMSProp(0.1, rho=1.5)


def test_bad_adadelta_settings_are_named():
    with pytest.raises(ValueError, match=r"rho must be in \[0, 1\) and epsilon > 0"):
        fluid.optimizer.Adadelta(0.1, rho=1.0)


def test_paddle_2s_adadelta_op_scales_its_step_by_a_bound_learning_rate():
    """Paddle 2.x programs bind LearningRate to adadelta: the step is lr times Fluid's."""
    from paddle_ir.ops.optimizers.adadelta import adadelta_dense

    g = np.array([0.5, -2.0])
    one = adadelta_dense({"rho": 0.9, "epsilon": 1e-6}, np.zeros(2), g, np.zeros(2),
                         np.zeros(2), None)[0]
    half = adadelta_dense({"rho": 0.9, "epsilon": 1e-6}, np.zeros(2), g, np.zeros(2),
                          np.zeros(2), np.array([0.5]))[0]
    np.testing.assert_allclose(half, 0.5 * one)
    assert (one * g < 0).all()  # a descent step


def test_bad_lars_settings_are_named():
    with pytest.raises(ValueError, match="lars_coeff and lars_weight_decay must be >= 0"):
        fluid.optimizer.LarsMomentum(0.1, momentum=0.9, lars_coeff=-1.0)
