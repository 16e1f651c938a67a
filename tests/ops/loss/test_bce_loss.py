"""bce_loss (ops/loss/bce_loss.py) against numpy, the -100 clamp and the gradient."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError
from tests.op_test import check_grad, check_op


def test_bce_loss_and_its_gradient():
    r = np.random.RandomState(7)
    x, label = r.uniform(0.05, 0.95, (4, 3)), r.uniform(0, 1, (4, 3))
    want = -(label * np.log(x) + (1 - label) * np.log(1 - x))
    check_op("bce_loss", {"X": x, "Label": label}, {}, {"Out": want})
    check_grad("bce_loss", {"X": x, "Label": label}, wrt=("X",))


def test_bce_loss_clamps_the_logs_at_minus_100():
    x = np.array([[0.0], [1.0], [0.5]])
    label = np.array([[1.0], [0.0], [1.0]])
    check_op("bce_loss", {"X": x, "Label": label}, {},
             {"Out": np.array([[100.0], [100.0], [-np.log(0.5)]])})


def test_bce_loss_refuses_values_outside_0_1():
    with pytest.raises(KernelError, match=r"bce_loss: X must hold probabilities in \[0, 1\]"):
        check_op("bce_loss", {"X": np.array([[0.5], [1.5]]), "Label": np.ones((2, 1))})
