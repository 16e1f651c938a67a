"""precision_recall (ops/metrics/precision_recall.py) against per-sample state updates and
the metrics written out here, with weights and accumulated states."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError
from tests.op_test import check_op


def _states(pred, true, w, classes):
    s = np.zeros((classes, 4))
    for p, t, wi in zip(pred, true, w, strict=True):
        if p == t:
            s[p, 0] += wi
            s[:, 2] += wi
            s[p, 2] -= wi
        else:
            s[t, 3] += wi
            s[p, 1] += wi
            s[:, 2] += wi
            s[p, 2] -= wi
            s[t, 2] -= wi
    return s


def _metrics(s):
    def prec(tp, fp):
        return tp / (tp + fp) if tp > 0 or fp > 0 else 1.0

    def f1(p, r):
        return 2 * p * r / (p + r) if p > 0 or r > 0 else 0.0
    mp = np.mean([prec(s[c, 0], s[c, 1]) for c in range(len(s))])
    mr = np.mean([prec(s[c, 0], s[c, 3]) for c in range(len(s))])
    up, ur = prec(s[:, 0].sum(), s[:, 1].sum()), prec(s[:, 0].sum(), s[:, 3].sum())
    return np.array([mp, mr, f1(mp, mr), up, ur, f1(up, ur)])


@pytest.mark.parametrize("weighted,accumulated", [(False, False), (True, True)])
def test_precision_recall_matches_the_reference(weighted, accumulated):
    r = np.random.RandomState(15)
    n, classes = 40, 5
    pred, true = r.randint(0, classes, n), r.randint(0, classes, n)
    true[:12] = pred[:12]  # some hits
    w = r.uniform(0.5, 2, n) if weighted else np.ones(n)
    inputs = {"MaxProbs": r.rand(n, 1), "Indices": pred.reshape(-1, 1).astype(np.int32),
              "Labels": true.reshape(-1, 1).astype(np.int64)}
    if weighted:
        inputs["Weights"] = w.reshape(-1, 1)
    batch = _states(pred, true, w, classes)
    accum = batch.copy()
    if accumulated:
        prior = r.uniform(0, 3, (classes, 4))
        inputs["StatesInfo"] = prior
        accum += prior
    check_op("precision_recall", inputs, {"class_number": classes},
             {"BatchMetrics": _metrics(batch), "AccumMetrics": _metrics(accum),
              "AccumStatesInfo": accum})


def test_a_class_outside_class_number_is_named():
    with pytest.raises(KernelError, match=r"precision_recall: Labels\[1\] = 3 is outside"):
        check_op("precision_recall", {"MaxProbs": np.ones((2, 1)),
                                      "Indices": np.array([[0], [1]]),
                                      "Labels": np.array([[0], [3]])}, {"class_number": 3})
