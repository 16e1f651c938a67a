"""layers.distributions against scipy.stats and closed forms written here, and the values
Fluid 1.7's documentation gives for its own examples."""

import math

import numpy as np
import pytest
from scipy import stats

import paddle_ir.fluid as fluid
from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.fluid.layers import Categorical, MultivariateNormalDiag, Normal, Uniform


def _run(build, feed=None):
    main, startup = fluid.Program(), fluid.Program()
    startup.random_seed = main.random_seed = 7
    with fluid.program_guard(main, startup):
        outputs = build()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed or {}, fetch_list=list(outputs))


def _value(array):
    def make():
        var = fluid.layers.create_tensor(dtype="float32")
        fluid.layers.assign(np.asarray(array, np.float32), var)
        return var
    return make


def test_fluid_s_documented_examples():
    def build():
        value = _value([0.8])()
        uniform, a, b = Uniform([0.0], [2.0]), Normal([0.0], [1.0]), Normal([0.5], [2.0])
        ca = Categorical(_value([-0.602, -0.602])())
        cb = Categorical(_value([-0.102, -0.112])())
        ma = MultivariateNormalDiag(_value([0.3, 0.5])(), _value([[0.4, 0], [0, 0.5]])())
        mb = MultivariateNormalDiag(_value([0.2, 0.4])(), _value([[0.3, 0], [0, 0.4]])())
        return (uniform.entropy(), uniform.log_prob(value), a.entropy(), a.log_prob(value),
                a.kl_divergence(b), ca.entropy(), cb.entropy(), ca.kl_divergence(cb),
                ma.entropy(), mb.entropy(), ma.kl_divergence(mb))

    got = [float(np.asarray(v).reshape(-1)[0]) for v in _run(build)]
    documented = [0.6931472, -0.6931472, 1.4189385, -1.2389386, 0.34939718, 0.6931472,
                  0.6931347, 1.2516975e-05, 2.033158, 1.7777451, 0.06542051]
    np.testing.assert_allclose(got, documented, rtol=2e-5, atol=1e-7)


def test_uniform_and_normal_against_scipy_with_broadcast_arguments():
    low, high = np.array([-1.0, 0.0, 2.0], np.float32), 3.0
    loc, scale = np.array([[0.0, 1.0, -2.0]], np.float32), np.array([0.5, 2.0, 1.0], np.float32)
    other_loc, other_scale = np.float32(0.3), np.array([1.5, 0.7, 3.0], np.float32)
    points = np.array([[-0.5, 0.5, 2.5], [2.9, -3.0, 1.0]], np.float32)

    def build():
        value = fluid.layers.data("v", [3], dtype="float32")
        u, n = Uniform(low, [high] * 3), Normal(loc, scale)
        q = Normal(np.full((1, 3), other_loc), other_scale)
        return u.entropy(), u.log_prob(value), n.entropy(), n.log_prob(value), n.kl_divergence(q)

    u_ent, u_lp, n_ent, n_lp, kl = _run(build, {"v": points})
    width = high - low
    np.testing.assert_allclose(u_ent, np.log(width), rtol=1e-6)
    inside = (points > low) & (points < high)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(u_lp, np.where(inside, -np.log(width), -np.inf), rtol=1e-6)
    np.testing.assert_allclose(n_ent, stats.norm(loc, scale).entropy(), rtol=1e-5)
    np.testing.assert_allclose(n_lp, stats.norm(loc, scale).logpdf(points), rtol=1e-5)
    expected_kl = (np.log(other_scale / scale)
                   + (scale ** 2 + (loc - other_loc) ** 2) / (2 * other_scale ** 2) - 0.5)
    np.testing.assert_allclose(kl, expected_kl, rtol=1e-5, atol=1e-6)


def test_categorical_and_multivariate_normal_against_closed_forms():
    rng = np.random.RandomState(3)
    logits_p, logits_q = rng.randn(4, 5).astype(np.float32), rng.randn(4, 5).astype(np.float32)
    loc_p, loc_q = rng.randn(3).astype(np.float32), rng.randn(3).astype(np.float32)
    cov_p = np.diag(rng.uniform(0.5, 2, 3)).astype(np.float32)
    cov_q = np.diag(rng.uniform(0.5, 2, 3)).astype(np.float32)

    def build():
        p, q = Categorical(logits_p), Categorical(logits_q)
        mp, mq = MultivariateNormalDiag(loc_p, cov_p), MultivariateNormalDiag(loc_q, cov_q)
        return p.entropy(), p.kl_divergence(q), mp.entropy(), mp.kl_divergence(mq)

    ent, kl, m_ent, m_kl = _run(build)
    prob_p = np.exp(logits_p) / np.exp(logits_p).sum(-1, keepdims=True)
    prob_q = np.exp(logits_q) / np.exp(logits_q).sum(-1, keepdims=True)
    np.testing.assert_allclose(ent, stats.entropy(prob_p, axis=-1)[:, None], rtol=1e-5)
    np.testing.assert_allclose(kl, stats.entropy(prob_p, prob_q, axis=-1)[:, None], rtol=1e-4)
    np.testing.assert_allclose(np.asarray(m_ent).reshape(-1)[0],
                               stats.multivariate_normal(loc_p, cov_p).entropy(), rtol=1e-5)
    inv_q = np.linalg.inv(cov_q)
    d = loc_q - loc_p
    expected = 0.5 * (np.trace(inv_q @ cov_p) + d @ inv_q @ d - 3
                      + math.log(np.linalg.det(cov_q) / np.linalg.det(cov_p)))
    np.testing.assert_allclose(np.asarray(m_kl).reshape(-1)[0], expected, rtol=1e-5)


def test_samples_have_fluid_s_shapes_and_the_distribution_s_moments():
    def build():
        n = Normal([1.0, -2.0], [0.5, 3.0])
        u = Uniform(1.0, 4.0)  # floats: samples of exactly the asked shape
        return n.sample([20000], seed=11), u.sample([20000], seed=5)

    normal, uniform = _run(build)
    assert normal.shape == (20000, 2) and uniform.shape == (20000,)
    np.testing.assert_allclose(normal.mean(0), [1.0, -2.0], atol=0.06)
    np.testing.assert_allclose(normal.std(0), [0.5, 3.0], rtol=0.03)
    assert 1.0 <= uniform.min() and uniform.max() < 4.0
    np.testing.assert_allclose([uniform.mean(), uniform.var()], [2.5, 0.75], rtol=0.03)


def test_variable_arguments_sample_with_the_run_time_batch():
    loc = np.arange(10, dtype=np.float32).reshape(5, 2)
    scale = np.linspace(0.5, 2, 10, dtype=np.float32).reshape(5, 2)

    def build():
        lv = fluid.layers.data("loc", [2], dtype="float32")
        sv = fluid.layers.data("scale", [2], dtype="float32")
        return (Normal(lv, sv).sample([4000], seed=2),
                Uniform(lv, lv + sv).sample([4000], seed=3))

    normal, uniform = _run(build, {"loc": loc, "scale": scale})
    assert normal.shape == uniform.shape == (4000, 5, 2)  # shape + [batch, 2]
    np.testing.assert_allclose(normal.mean(0), loc, atol=0.15)
    np.testing.assert_allclose(normal.std(0), scale, rtol=0.06)
    assert (uniform >= loc).all() and (uniform < loc + scale).all()
    np.testing.assert_allclose(uniform.mean(0), loc + scale / 2, atol=0.05)


def test_bad_arguments_are_refused_naming_what_is_accepted():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data("x", [2], dtype="float32")
        with pytest.raises(InvalidProgramError, match="all arguments must be Variables"):
            Normal(x, 1.0)
        with pytest.raises(InvalidProgramError, match=r"loc must be one of \(float, list"):
            Normal("zero", 1.0)
        with pytest.raises(InvalidProgramError, match="other must be one of"):
            Normal(0.0, 1.0).kl_divergence(Uniform(0.0, 1.0))
        with pytest.raises(InvalidProgramError, match="shape must be a list"):
            Normal(0.0, 1.0).sample((3,))
        ids = fluid.layers.data("ids", [2], dtype="int64")
        with pytest.raises(InvalidProgramError, match="float32 or float64, got int64"):
            Normal(0.0, 1.0).log_prob(ids)
