"""lamb (ops/optimizers/lamb.py) against LAMB's formula written in numpy: three steps,
dense and SelectedRows, with and without the dispensable beta-power outputs."""

import numpy as np
import pytest

from paddle_ir.core.selected_rows import SelectedRows


def _f32(x):
    return float(np.float32(x))  # FLOAT attributes travel as float32


def _reference(p, m1, m2, b1p, b2p, g, lr, wd, b1, b2, eps):
    m1 = b1 * m1 + (1 - b1) * g
    m2 = b2 * m2 + (1 - b2) * g * g
    r = (m1 / (1 - b1p)) / (np.sqrt(m2 / (1 - b2p)) + eps) + wd * p
    pn, rn = np.linalg.norm(p), np.linalg.norm(r)
    ratio = pn / rn if pn > 0 and rn > 0 else 1.0
    return p - lr * ratio * r, m1, m2


def _state(rng, shape=(4, 3)):
    return {"Param": rng.randn(*shape), "LearningRate": np.array([0.01]),
            "Moment1": rng.rand(*shape), "Moment2": rng.rand(*shape),
            "Beta1Pow": np.array([0.9]), "Beta2Pow": np.array([0.999])}


@pytest.mark.parametrize("sparse", [False, True])
def test_three_steps_match_the_formula(update_program, sparse):
    rng = np.random.RandomState(2)
    state = _state(rng)
    attrs = {"weight_decay": 0.05, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-4}
    run = update_program("lamb", state, attrs, state["Param"], sparse=sparse)
    wd, b1, b2, eps = (_f32(attrs[k]) for k in ("weight_decay", "beta1", "beta2", "epsilon"))
    p, m1, m2 = state["Param"].copy(), state["Moment1"].copy(), state["Moment2"].copy()
    b1p, b2p = 0.9, 0.999
    for _ in range(3):
        if sparse:
            rows, values = np.array([2, 0, 2]), rng.randn(3, 3)
            g = np.zeros_like(p)
            np.add.at(g, rows, values)
            got = run.step(SelectedRows(rows, values, 4))
        else:
            g = rng.randn(4, 3)
            got = run.step(g)
        p, m1, m2 = _reference(p, m1, m2, b1p, b2p, g, 0.01, wd, b1, b2, eps)
        b1p, b2p = b1p * b1, b2p * b2
        np.testing.assert_allclose(got["moment1"], m1, rtol=1e-12)
        np.testing.assert_allclose(got["moment2"], m2, rtol=1e-12)
        np.testing.assert_allclose(got["param"], p, rtol=1e-10)
        np.testing.assert_allclose(got["beta1pow"], [b1p], rtol=1e-12)
        np.testing.assert_allclose(got["beta2pow"], [b2p], rtol=1e-12)


def test_without_beta_pow_outputs_the_powers_stay(update_program):
    """A Paddle 1.8 program names no Beta*PowOut (it scales the powers with its own ops)."""
    rng = np.random.RandomState(4)
    state = _state(rng)
    run = update_program("lamb", state, {}, state["Param"],
                         out_slots={"Beta1Pow": None, "Beta2Pow": None})
    got = run.step(rng.randn(4, 3))
    assert got["beta1pow"][0] == 0.9 and got["beta2pow"][0] == 0.999
    assert not np.array_equal(got["param"], state["Param"])


def test_zero_param_takes_the_plain_learning_rate(update_program):
    # Beta*Pow at the float32 betas the op uses, so the bias corrections are exact.
    state = {**_state(np.random.RandomState(0)), "Param": np.zeros((4, 3)),
             "Moment1": np.zeros((4, 3)), "Moment2": np.zeros((4, 3)),
             "Beta1Pow": np.array([_f32(0.9)]), "Beta2Pow": np.array([_f32(0.999)])}
    run = update_program("lamb", state, {"weight_decay": 0.0}, state["Param"])
    g = np.full((4, 3), 2.0)
    got = run.step(g)
    # m_hat = g, v_hat = g^2: r = g / (|g| + eps) ~ 1; ||p|| = 0, so ratio 1 and step lr * r
    np.testing.assert_allclose(got["param"], -0.01 * 2.0 / (2.0 + _f32(1e-6)), rtol=1e-9)
