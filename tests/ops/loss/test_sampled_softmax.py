"""hierarchical_sigmoid, nce and sample_logits (ops/loss/sampled_softmax.py)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(59)


def _tree_path(label, num_classes):
    code = label + num_classes
    path = []
    j = 0
    while (code >> (j + 1)) > 0:
        path.append(((code >> (j + 1)) - 1, (code >> j) & 1))
        j += 1
    return path


def test_hierarchical_sigmoid():
    c, d = 6, 3
    x = rng.uniform(-1, 1, (4, d))
    w = rng.uniform(-1, 1, (c - 1, d))
    b = rng.uniform(-1, 1, (c - 1, 1))
    label = np.array([[0], [5], [3], [1]], np.int64)
    # Paddle's Out sums softplus over all code_length = 3 columns of PreOut, those past a
    # row's path holding pre = 0: a row whose path is k bits short gets k ln 2 more. Failed
    # before the fix for labels 0 and 1 (paths of 2 bits), which were short by ln 2.
    code_length = (c - 1).bit_length()
    want, want_pre = [], np.full((4, code_length), math.log(2))
    for i in range(4):
        path = _tree_path(int(label[i, 0]), c)
        total = (code_length - len(path)) * math.log(2)
        for j, (node, bit) in enumerate(path):
            pre = x[i] @ w[node] + b[node, 0]
            total += math.log(1 + math.exp(pre)) - bit * pre
            want_pre[i, j] = math.log(1 + math.exp(pre))
        want.append([total])
    inputs = {"X": x, "W": w, "Label": label, "Bias": b}
    check_op("hierarchical_sigmoid", inputs, {"num_classes": c},
             {"Out": np.array(want), "PreOut": want_pre})
    check_grad("hierarchical_sigmoid", inputs, {"num_classes": c}, wrt=("X", "W", "Bias"))


def test_nce_against_its_samples():
    n, d, classes, k = 3, 4, 7, 5
    x = rng.uniform(-1, 1, (n, d))
    w = rng.uniform(-1, 1, (classes, d))
    b = rng.uniform(-1, 1, (classes, 1))
    label = np.array([[1], [6], [2]], np.int64)
    attrs = {"num_total_classes": classes, "num_neg_samples": k, "seed": 17}
    inputs = {"Input": x, "Label": label, "Weight": w, "Bias": b}
    out = check_op("nce", inputs, attrs)
    samples = np.asarray(out["SampleLabels"][0])
    assert (samples[:, 0] == label[:, 0]).all() and samples.shape == (n, 1 + k)
    kq = k / classes
    want = []
    for i in range(n):
        cost = 0.0
        for j, cls in enumerate(samples[i]):
            o = 1 / (1 + math.exp(-(x[i] @ w[cls] + b[cls, 0])))
            cost += -math.log(o / (o + kq)) if j == 0 else -math.log(kq / (o + kq))
        want.append([cost])
    np.testing.assert_allclose(np.asarray(out["Cost"][0]), want, rtol=1e-6)
    check_grad("nce", inputs, attrs, wrt=("Input", "Weight", "Bias"), out_slot="Cost")


def test_sample_logits():
    logits = rng.uniform(-1, 1, (3, 10))
    labels = np.array([[2], [7], [0]], np.int64)
    attrs = {"num_samples": 4, "seed": 3}
    out = check_op("sample_logits", {"Logits": logits, "Labels": labels}, attrs)
    samples = np.asarray(out["Samples"][0])
    picked = np.asarray(out["SampledLogits"][0])
    for i in range(3):
        for j, cls in enumerate(samples[i]):
            q = math.log((cls + 2) / (cls + 1)) / math.log(11)
            want = logits[i, cls] - math.log(q)
            if j > 0 and cls == labels[i, 0]:
                want = -1e20
            assert picked[i, j] == np.float64(want) or abs(picked[i, j] - want) < 1e-9
    np.testing.assert_array_equal(np.asarray(out["SampledLabels"][0]), [[0], [0], [0]])
    check_grad("sample_logits", {"Logits": logits, "Labels": labels},
               {**attrs, "remove_accidental_hits": False}, wrt=("Logits",),
               out_slot="SampledLogits")


F = np.ones((2, 3))
I64 = np.array([[0], [1]], np.int64)


ERROR_CASES = [
    ("hierarchical_sigmoid", {"X": F, "W": np.ones((3, 3)), "Label": I64}, {"num_classes": 5},
     r"W must be \[num_classes - 1, D\] = \[4, D\]"),
    ("nce", {"Input": F, "Label": I64, "Weight": np.ones((4, 3))}, {"num_neg_samples": 0},
     "num_neg_samples must be >= 1"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)


def test_nce_with_custom_neg_classes_uses_them_for_every_row():
    n, d, classes = 3, 4, 7
    x, w = rng.uniform(-1, 1, (n, d)), rng.uniform(-1, 1, (classes, d))
    label = np.array([[1], [6], [2]], np.int64)
    attrs = {"num_total_classes": classes, "num_neg_samples": 3, "custom_neg_classes": [0, 3, 5]}
    out = check_op("nce", {"Input": x, "Label": label, "Weight": w}, attrs)
    np.testing.assert_array_equal(np.asarray(out["SampleLabels"][0]),
                                  np.concatenate([label, np.tile([0, 3, 5], (n, 1))], 1))
    with pytest.raises(PaddleIRError, match="custom_neg_classes must hold num_neg_samples = 3"):
        check_op("nce", {"Input": x, "Label": label, "Weight": w},
                 {**attrs, "custom_neg_classes": [0, 9, 5]})


def test_hierarchical_sigmoid_with_a_custom_tree():
    """PathTable/PathCode give each row's nodes and target bits; -1 ends a path, and each
    column past it adds ln 2 (softplus of the zero padding), as Paddle's kernel sums."""
    n, d, nodes = 3, 4, 5
    x = rng.uniform(-1, 1, (n, d))
    w = rng.uniform(-1, 1, (nodes, d))
    b = rng.uniform(-1, 1, (nodes, 1))
    table = np.array([[0, 2, 4], [1, 3, -1], [0, -1, -1]], np.int64)
    code = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 0]], np.int64)
    want, want_pre = [], np.zeros((n, 3))
    for i in range(n):
        total = 0.0
        for j in range(3):
            if table[i, j] < 0:
                total += math.log(2.0)
                want_pre[i, j] = math.log(2.0)
                continue
            pre = float(np.clip(x[i] @ w[table[i, j]] + b[table[i, j], 0], -40, 40))
            total += math.log(1 + math.exp(pre)) - code[i, j] * pre
            want_pre[i, j] = math.log(1 + math.exp(pre))
        want.append([total])
    inputs = {"X": x, "W": w, "Label": np.zeros((n, 1), np.int64), "Bias": b,
              "PathTable": table, "PathCode": code}
    check_op("hierarchical_sigmoid", inputs, {"num_classes": 2},
             {"Out": np.array(want), "PreOut": want_pre})
    check_grad("hierarchical_sigmoid", inputs, {"num_classes": 2}, wrt=("X", "W", "Bias"))
    with pytest.raises(PaddleIRError, match="PathTable names node 5, but W has 5 rows"):
        check_op("hierarchical_sigmoid", {**inputs, "PathTable": table + (table >= 0)},
                 {"num_classes": 2})
