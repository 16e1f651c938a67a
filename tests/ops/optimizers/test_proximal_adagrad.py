"""proximal_adagrad (ops/optimizers/proximal_adagrad.py) against its formula in numpy."""

import numpy as np
import pytest


@pytest.mark.parametrize("l1,l2", [(0.0, 0.0), (0.2, 0.1)])
def test_three_steps_match_the_formula(update_program, l1, l2):
    rng = np.random.RandomState(5)
    p, m = rng.randn(3, 4), rng.rand(3, 4) + 0.1
    run = update_program("proximal_adagrad",
                         {"Param": p, "Moment": m, "LearningRate": np.array([0.3])},
                         {"l1": l1, "l2": l2}, p)
    l1, l2 = float(np.float32(l1)), float(np.float32(l2))
    for _ in range(3):
        g = rng.randn(3, 4)
        m = m + g * g
        prox = p - 0.3 * g / np.sqrt(m)
        if l1 > 0:
            p = np.sign(prox) * np.maximum(np.abs(prox) - 0.3 * l1, 0) / (1 + 0.3 * l2)
        else:
            p = prox / (1 + 0.3 * l2)
        got = run.step(g)
        np.testing.assert_allclose(got["moment"], m, rtol=1e-12)
        np.testing.assert_allclose(got["param"], p, rtol=1e-12, atol=1e-12)


def test_zero_moment_and_zero_grad_give_nan_as_in_paddle(update_program):
    p = np.ones((2, 2))
    run = update_program("proximal_adagrad", {"Param": p, "Moment": np.zeros((2, 2)),
                                              "LearningRate": np.array([0.1])}, {}, p)
    got = run.step(np.array([[0.0, 1.0], [1.0, 1.0]]))["param"]
    assert np.isnan(got[0, 0]) and np.isfinite(got[1]).all()
