"""dpsgd (ops/optimizers/dpsgd.py): clipping by the L2 norm, one shared Gaussian draw per
step, and the fixed seed."""

import numpy as np
import pytest


def _run(update_program, g, attrs, steps=1):
    p = np.zeros_like(g)
    run = update_program("dpsgd", {"Param": p, "LearningRate": np.array([0.5], g.dtype)},
                         attrs, p)
    for _ in range(steps):
        got = run.step(g)
    return got["param"]


def test_without_noise_the_gradient_is_clipped_to_the_norm(update_program):
    g = np.array([[3.0, 4.0]])  # norm 5
    clipped = _run(update_program, g, {"clip": 2.5, "sigma": 0.0})
    np.testing.assert_allclose(clipped, -0.5 * g * 2.5 / 5.0, rtol=1e-7)
    kept = _run(update_program, g, {"clip": 10.0, "sigma": 0.0})
    np.testing.assert_allclose(kept, -0.5 * g, rtol=1e-7)


def test_the_noise_is_one_draw_shared_by_every_element(update_program):
    g = np.zeros((3, 4))
    got = _run(update_program, g, {"sigma": 2.0, "batch_size": 4.0, "seed": 7})
    assert np.all(got == got.flat[0]) and got.flat[0] != 0
    # seed 7's standard normal draw, scaled as the formula says (float32 noise)
    draw = np.float32(np.random.default_rng(7).standard_normal())
    np.testing.assert_allclose(got.flat[0], -0.5 * float(draw * np.float32(2.0)) / 4.0,
                               rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_fixed_seed_repeats_its_draw_and_seed_zero_does_not(update_program, dtype):
    g = np.zeros((2, 2), dtype)
    twice = _run(update_program, g, {"sigma": 1.0, "seed": 3}, steps=2)
    once = _run(update_program, g, {"sigma": 1.0, "seed": 3}, steps=1)
    assert twice.dtype == dtype
    np.testing.assert_allclose(twice, 2 * once, rtol=1e-6)
    a = _run(update_program, g, {"sigma": 1.0}, steps=1)
    b = _run(update_program, g, {"sigma": 1.0}, steps=1)
    assert a.flat[0] != b.flat[0]
