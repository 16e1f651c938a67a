"""affine_grid and grid_sampler (ops/nn/grid_sample.py)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(71)


def test_affine_grid():
    theta = rng.uniform(-1, 1, (2, 2, 3))
    h, w = 3, 4
    want = np.zeros((2, h, w, 2))
    for n in range(2):
        for i in range(h):
            for j in range(w):
                base = np.array([-1 + 2 * j / (w - 1), -1 + 2 * i / (h - 1), 1.0])
                want[n, i, j] = theta[n] @ base
    attrs = {"output_shape": [2, 1, h, w]}
    check_op("affine_grid", {"Theta": theta}, attrs, {"Output": want})
    check_grad("affine_grid", {"Theta": theta}, attrs, wrt=("Theta",), out_slot="Output")
    check_op("affine_grid", {"Theta": theta, "OutputShape": np.array([2, 1, h, w], np.int32)},
             {}, {"Output": want})


def _bilinear(img, x, y):
    h, w = img.shape
    px, py = (x + 1) * (w - 1) / 2, (y + 1) * (h - 1) / 2
    x0, y0 = math.floor(px), math.floor(py)
    total = 0.0
    for yy, xx in ((y0, x0), (y0, x0 + 1), (y0 + 1, x0), (y0 + 1, x0 + 1)):
        if 0 <= yy < h and 0 <= xx < w:
            total += img[yy, xx] * (1 - abs(px - xx)) * (1 - abs(py - yy))
    return total


def test_grid_sampler():
    x = rng.uniform(-1, 1, (2, 2, 4, 5))
    grid = rng.uniform(-1.2, 1.2, (2, 3, 3, 2))
    want = np.zeros((2, 2, 3, 3))
    for n in range(2):
        for c in range(2):
            for i in range(3):
                for j in range(3):
                    want[n, c, i, j] = _bilinear(x[n, c], *grid[n, i, j])
    check_op("grid_sampler", {"X": x, "Grid": grid}, {}, {"Output": want})
    # keep sample points off pixel borders, where the bilinear weights have kinks
    px = (grid[..., 0] + 1) * 2
    py = (grid[..., 1] + 1) * 1.5
    safe = (np.abs(px - np.round(px)) > 0.05) & (np.abs(py - np.round(py)) > 0.05)
    grid = np.where(safe[..., None], grid, grid + 0.07)
    check_grad("grid_sampler", {"X": x, "Grid": grid}, {}, wrt=("X", "Grid"),
               out_slot="Output")


F = np.ones((2, 3))


ERROR_CASES = [
    ("affine_grid", {"Theta": np.ones((1, 3, 3))}, {"output_shape": [1, 1, 2, 2]},
     r"Theta must be \[N, 2, 3\]"),
    ("grid_sampler", {"X": F, "Grid": np.ones((1, 2, 2, 2))}, {}, "X \\[N, C, H, W\\] and Grid"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
