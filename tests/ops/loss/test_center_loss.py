"""center_loss (ops/loss/center_loss.py)."""

import numpy as np

from tests.op_test import check_grad, check_op

rng = np.random.RandomState(59)


def test_center_loss():
    x = rng.uniform(-1, 1, (5, 3))
    label = np.array([[0], [2], [0], [1], [0]], np.int64)
    centers = rng.uniform(-1, 1, (4, 3))
    rate = np.array([0.5])
    diff = x - centers[label[:, 0]]
    new = centers.copy()
    for c in range(4):
        rows = [i for i in range(5) if label[i, 0] == c]
        if rows:
            new[c] += 0.5 * diff[rows].sum(0) / (1 + len(rows))
    inputs = {"X": x, "Label": label, "Centers": centers, "CenterUpdateRate": rate}
    check_op("center_loss", inputs, {"cluster_num": 4},
             {"SampleCenterDiff": diff, "Loss": 0.5 * (diff ** 2).sum(1, keepdims=True),
              "CentersOut": new})
    check_grad("center_loss", inputs, {"cluster_num": 4}, wrt=("X",), out_slot="Loss")
