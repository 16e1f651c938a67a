"""nll_loss (ops/loss/nll_loss.py) against a loop written here, for each reduction, with
weights, ignore_index, a 4-D X and the gradient."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError
from tests.op_test import check_grad, check_op


def _reference(x, label, weight, ignore, reduction):
    losses, total = np.zeros(label.shape), 0.0
    for pos in np.ndindex(label.shape):
        cls = label[pos]
        if cls == ignore:
            continue
        w = 1.0 if weight is None else weight[cls]
        losses[pos] = -w * x[(pos[0], cls) + pos[1:]]
        total += w
    if reduction == "none":
        return losses, total
    out = losses.sum()
    return (out / total if reduction == "mean" and total else out), total


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(6, 4), (2, 4, 3, 2)])
def test_nll_loss_matches_the_loop(reduction, weighted, shape):
    r = np.random.RandomState(8)
    x = np.log(r.uniform(0.05, 1.0, shape))
    label = r.randint(0, shape[1], (shape[0],) + shape[2:]).astype(np.int64)
    label.reshape(-1)[1] = 2  # an ignored position
    weight = r.uniform(0.5, 2.0, shape[1]) if weighted else None
    inputs = {"X": x, "Label": label, **({"Weight": weight} if weighted else {})}
    out, total = _reference(x, label, weight, 2, reduction)
    attrs = {"reduction": reduction, "ignore_index": 2}
    check_op("nll_loss", inputs, attrs,
             {"Out": np.asarray(out), "Total_weight": np.asarray(total)})
    check_grad("nll_loss", inputs, attrs, wrt=("X",))


def test_nll_loss_label_out_of_range_is_named():
    with pytest.raises(KernelError, match=r"nll_loss: Label\[1\] = 7 is outside"):
        check_op("nll_loss", {"X": np.zeros((3, 4)), "Label": np.array([0, 7, 1])})
