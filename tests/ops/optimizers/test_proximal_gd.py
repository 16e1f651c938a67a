"""proximal_gd (ops/optimizers/proximal_gd.py) against its formula written in numpy."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.selected_rows import SelectedRows


def _reference(p, g, lr, l1, l2):
    prox = p - lr * g
    if l1 > 0:
        return np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, 0) / (1 + lr * l2)
    return prox / (1 + lr * l2)


@pytest.mark.parametrize("l1,l2", [(0.0, 0.0), (0.25, 0.0), (0.0, 0.5), (0.3, 0.2)])
def test_three_steps_match_the_formula(update_program, l1, l2):
    rng = np.random.RandomState(3)
    p = rng.randn(4, 5)
    run = update_program("proximal_gd", {"Param": p, "LearningRate": np.array([0.5])},
                         {"l1": l1, "l2": l2}, p)
    want = p.copy()
    l1, l2 = float(np.float32(l1)), float(np.float32(l2))  # FLOAT attributes are float32
    for _ in range(3):
        g = rng.randn(4, 5)
        want = _reference(want, g, 0.5, l1, l2)
        np.testing.assert_allclose(run.step(g)["param"], want, rtol=1e-12, atol=1e-12)
    assert (want == 0).any() or l1 == 0  # the l1 shrinkage is exercised


def test_float32_and_sparse_refused(update_program):
    p = np.ones((3, 2), np.float32)
    run = update_program("proximal_gd", {"Param": p, "LearningRate": np.array([0.1], np.float32)},
                         {"l1": 0.1}, p)
    got = run.step(np.full((3, 2), 2.0, np.float32))["param"]
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.full((3, 2), 0.79, np.float32), rtol=1e-6)
    sparse = update_program("proximal_gd", {"Param": p, "LearningRate": np.array([0.1],
                                                                              np.float32)},
                            {}, p, sparse=True)
    grad = SelectedRows(np.array([1]), np.ones((1, 2), np.float32), 3)
    with pytest.raises(PaddleIRError, match="proximal_gd"):
        sparse.step(grad)
