"""sigmoid_focal_loss against the focal loss written per element, its gradient against
central differences."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(92)


def _reference(x, label, fg, gamma, alpha):
    out = np.zeros_like(x)
    f = max(fg, 1)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            p = 1 / (1 + math.exp(-x[i, j]))
            if label[i, 0] == j + 1:
                out[i, j] = -alpha / f * (1 - p) ** gamma * math.log(p)
            elif label[i, 0] != -1:
                out[i, j] = -(1 - alpha) / f * p ** gamma * math.log(1 - p)
    return out


@pytest.mark.parametrize("gamma,alpha,fg", [(2.0, 0.25, 3), (0.5, 0.6, 0)])
def test_sigmoid_focal_loss(gamma, alpha, fg):
    x = rng.randn(6, 4) * 2
    label = np.array([[0], [1], [4], [-1], [2], [3]], np.int32)
    check_op("sigmoid_focal_loss", {"X": x, "Label": label,
                                    "FgNum": np.array([fg], np.int32)},
             {"gamma": gamma, "alpha": alpha},
             {"Out": _reference(x, label, fg, gamma, alpha)})


def test_large_logits_stay_finite():
    x = np.array([[80.0, -80.0]], np.float32)
    got = check_op("sigmoid_focal_loss", {"X": x, "Label": np.array([[2]], np.int32),
                                          "FgNum": np.array([1], np.int32)}, {})
    assert np.isfinite(got["Out"][0].numpy()).all()


def test_sigmoid_focal_loss_gradient():
    x = rng.randn(5, 3)
    label = np.array([[0], [1], [3], [-1], [2]], np.int32)
    check_grad("sigmoid_focal_loss", {"X": x, "Label": label,
                                      "FgNum": np.array([2], np.int32)},
               {"gamma": 1.5, "alpha": 0.3})


def test_errors():
    with pytest.raises(ProgramError, match=r"Label must be \[4, 1\]"):
        check_op("sigmoid_focal_loss", {"X": np.ones((4, 3)), "Label": np.ones((3, 1), np.int32),
                                        "FgNum": np.ones(1, np.int32)})
