"""modified_huber_loss (ops/loss/modified_huber_loss.py): its three pieces against numpy,
with the gradient."""

import numpy as np

from tests.op_test import check_grad, check_op


def test_three_pieces_and_the_gradient():
    x = np.array([[-3.0], [-1.5], [-0.5], [0.2], [0.7], [1.6], [2.5], [-0.2]])
    y = np.array([[1.0], [1.0], [0.0], [1.0], [0.0], [1.0], [0.0], [0.0]])
    z = x * (2 * y - 1)
    want = np.where(z < -1, -4 * z, np.where(z < 1, (1 - z) ** 2, 0.0))
    assert (z < -1).any() and ((z >= -1) & (z < 1)).any() and (z >= 1).any()
    check_op("modified_huber_loss", {"X": x, "Y": y}, {}, {"IntermediateVal": z, "Out": want})
    check_grad("modified_huber_loss", {"X": x, "Y": y}, wrt=("X",))
