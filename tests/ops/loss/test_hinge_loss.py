"""hinge_loss (ops/loss/hinge_loss.py) against numpy, with its gradient."""

import numpy as np

from tests.op_test import check_grad, check_op


def test_hinge_loss_and_its_gradient():
    r = np.random.RandomState(3)
    logits = r.uniform(-2, 2, (8, 1))
    labels = (r.rand(8, 1) > 0.5).astype(np.float64)
    margin = 1 - (2 * labels - 1) * logits
    logits[np.abs(margin) < 0.05] += 0.2  # away from the hinge for the differences
    want = np.maximum(0, 1 - (2 * labels - 1) * logits)
    assert (want == 0).any() and (want > 0).any()
    check_op("hinge_loss", {"Logits": logits, "Labels": labels}, {}, {"Loss": want})
    check_grad("hinge_loss", {"Logits": logits, "Labels": labels}, wrt=("Logits",),
               out_slot="Loss")
