"""The losses of ops/loss/losses.py (huber log smooth_l1 kldiv margin_rank rank bpr
teacher_student_sigmoid ...)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError, ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(13)


def test_huber_loss():
    x = rng.uniform(-2, 2, (6, 1))
    y = rng.uniform(-2, 2, (6, 1))
    y[np.abs(np.abs(y - x) - 0.8) < 0.05] += 0.2
    r = y - x
    want = np.array([[0.5 * v * v if abs(v) <= 0.8 else 0.8 * (abs(v) - 0.4)] for v in r[:, 0]])
    check_op("huber_loss", {"X": x, "Y": y}, {"delta": 0.8}, {"Out": want, "Residual": r})
    check_grad("huber_loss", {"X": x, "Y": y}, {"delta": 0.8}, wrt=("X", "Y"))


def test_log_loss():
    p = rng.uniform(0.1, 0.9, (5, 1))
    label = (rng.uniform(0, 1, (5, 1)) > 0.5).astype(np.float64)
    want = np.array([[-(lb * math.log(q + 1e-4) + (1 - lb) * math.log(1 - q + 1e-4))]
                     for q, lb in zip(p[:, 0], label[:, 0], strict=True)])
    check_op("log_loss", {"Predicted": p, "Labels": label}, {}, {"Loss": want})
    check_grad("log_loss", {"Predicted": p, "Labels": label}, wrt=("Predicted",),
               out_slot="Loss")


@pytest.mark.parametrize("weights", [False, True])
def test_smooth_l1_loss(weights):
    x = rng.uniform(-1, 1, (4, 3))
    y = rng.uniform(-1, 1, (4, 3))
    sigma = 1.5
    inputs = {"X": x, "Y": y}
    inside = outside = np.ones_like(x)
    if weights:
        inside = rng.uniform(0.5, 1.5, x.shape)
        outside = rng.uniform(0.5, 1.5, x.shape)
        inputs.update(InsideWeight=inside, OutsideWeight=outside)
    d = (x - y) * inside
    d = np.where(np.abs(np.abs(d) - 1 / sigma ** 2) < 0.02, d * 1.1, d)
    x = y + d / inside
    inputs["X"] = x
    want = np.zeros((4, 1))
    for i in range(4):
        for j in range(3):
            v = d[i, j]
            term = 0.5 * (sigma * v) ** 2 if abs(v) < 1 / sigma ** 2 else abs(v) - 0.5 / sigma ** 2
            want[i, 0] += term * outside[i, j]
    check_op("smooth_l1_loss", inputs, {"sigma": sigma}, {"Out": want}, rtol=1e-6)
    check_grad("smooth_l1_loss", inputs, {"sigma": sigma}, wrt=("X", "Y"))


@pytest.mark.parametrize("reduction", ["none", "batchmean", "mean", "sum"])
def test_kldiv_loss(reduction):
    x = np.log(rng.uniform(0.1, 1, (3, 4)))
    t = rng.uniform(0, 1, (3, 4))
    t[0, 1] = 0.0
    terms = np.array([[tv * (math.log(tv) - xv) if tv > 0 else 0.0
                       for xv, tv in zip(xr, tr, strict=True)] for xr, tr in zip(x, t,
                                                                                 strict=True)])
    want = {"none": terms, "sum": np.array([terms.sum()]),
            "batchmean": np.array([terms.sum() / 3]), "mean": np.array([terms.mean()])}
    check_op("kldiv_loss", {"X": x, "Target": t}, {"reduction": reduction},
             {"Loss": want[reduction]})
    check_grad("kldiv_loss", {"X": x, "Target": t}, {"reduction": reduction}, wrt=("X",),
               out_slot="Loss")


def test_kldiv_bad_reduction():
    with pytest.raises(ProgramError, match="reduction must be one of none, batchmean"):
        check_op("kldiv_loss", {"X": np.ones((2, 2)), "Target": np.ones((2, 2))},
                 {"reduction": "avg"})


def test_margin_rank_and_rank_loss():
    x1 = rng.uniform(-1, 1, (6, 1))
    x2 = rng.uniform(-1, 1, (6, 1))
    label = np.where(rng.uniform(0, 1, (6, 1)) > 0.5, 1.0, -1.0)
    raw = -label * (x1 - x2) + 0.1
    x1 = np.where(np.abs(raw) < 0.05, x1 + 0.2 * label, x1)
    want = np.maximum(0, -label * (x1 - x2) + 0.1)
    check_op("margin_rank_loss", {"X1": x1, "X2": x2, "Label": label}, {"margin": 0.1},
             {"Out": want})
    check_grad("margin_rank_loss", {"X1": x1, "X2": x2, "Label": label}, {"margin": 0.1},
               wrt=("X1", "X2"))
    lab = rng.uniform(0, 1, (6, 1))
    want = np.array([[math.log(1 + math.exp(a - b)) - c * (a - b)]
                     for a, b, c in zip(x1[:, 0], x2[:, 0], lab[:, 0], strict=True)])
    check_op("rank_loss", {"Label": lab, "Left": x1, "Right": x2}, {}, {"Out": want})
    check_grad("rank_loss", {"Label": lab, "Left": x1, "Right": x2}, wrt=("Left", "Right"))


def test_bpr_loss():
    x = rng.uniform(-1, 1, (4, 5))
    label = np.array([[0], [3], [4], [3]], dtype=np.int64)
    want = np.zeros((4, 1))
    for i in range(4):
        pos = x[i, label[i, 0]]
        s = sum(math.log(1 / (1 + math.exp(-(pos - x[i, j])))) for j in range(5)
                if j != label[i, 0])
        want[i, 0] = -s / 4
    check_op("bpr_loss", {"X": x, "Label": label}, {}, {"Y": want})
    check_grad("bpr_loss", {"X": x, "Label": label}, wrt=("X",), out_slot="Y")


def test_teacher_student_sigmoid_loss():
    x = rng.uniform(-2, 2, (8, 1))
    label = np.array([[-2.0], [-1.0], [-0.5], [0.0], [0.3], [1.0], [1.7], [-1.5]])

    def s(v, z):
        return max(v, 0) - v * z + math.log(1 + math.exp(-abs(v)))

    want = []
    for v, lb in zip(x[:, 0], label[:, 0], strict=True):
        if lb < -1:
            want.append(s(v, 0))
        elif lb < 0:
            want.append(s(v, 1))
        elif lb < 1:
            want.append(s(v, 0) + s(v, lb))
        else:
            want.append(s(v, 1) + s(v, lb - 1))
    check_op("teacher_student_sigmoid_loss", {"X": x, "Label": label}, {},
             {"Y": np.array(want).reshape(-1, 1)})
    check_grad("teacher_student_sigmoid_loss", {"X": x, "Label": label}, wrt=("X",),
               out_slot="Y")


def test_loss_shape_error():
    with pytest.raises(ProgramError, match="X and Y must have the same shape"):
        check_op("huber_loss", {"X": np.ones((3, 1)), "Y": np.ones((3, 2))})


F = np.ones((2, 3))


ERROR_CASES = [
    ("kldiv_loss", {"X": F, "Target": np.ones((2, 2))}, {},
     "X and Target must have the same shape"),
    ("bpr_loss", {"X": F, "Label": np.ones((2, 1))}, {}, "Label must be int32 or int64"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
