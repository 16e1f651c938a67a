"""warpctc (ops/loss/warpctc.py), against every alignment."""

import itertools
import math

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(59)


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


def _ctc_brute(logits, label, blank):
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(logits.shape[1]), repeat=logits.shape[0]):
        collapsed = [v for i, v in enumerate(path) if i == 0 or v != path[i - 1]]
        if [v for v in collapsed if v != blank] == list(label):
            total += np.prod([p[t, v] for t, v in enumerate(path)])
    return -math.log(total)


def test_warpctc_against_every_alignment():
    lengths, label_lengths = [4, 3], [2, 1]
    logits = rng.uniform(-1, 1, (7, 3))
    labels = np.array([[1], [1], [2]], np.int64)
    want = []
    start, lstart = 0, 0
    for n, m in zip(lengths, label_lengths, strict=True):
        want.append([_ctc_brute(logits[start:start + n], labels[lstart:lstart + m, 0], 0)])
        start, lstart = start + n, lstart + m
    inputs = {"Logits": lod(logits, lengths), "Label": lod(labels, label_lengths)}
    check_op("warpctc", inputs, {"blank": 0}, {"Loss": np.array(want)}, rtol=1e-6)
    check_grad("warpctc", inputs, {"blank": 0}, wrt=("Logits",), out_slot="Loss")


ERROR_CASES = [
    ("warpctc", {"Logits": lod(np.zeros((1, 3)), [1]), "Label": lod(np.array([[1], [2]],
                                                                             np.int64), [2])},
     {}, "cannot be aligned to 1 steps"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)


def test_warpctc_padded_form_against_every_alignment():
    """Paddle 1.6+'s padded form: Logits [Tmax, B, C], Label [B, Lmax] and their lengths."""
    lengths, label_lengths = np.array([4, 3], np.int64), np.array([2, 1], np.int64)
    logits = rng.uniform(-1, 1, (5, 2, 3))  # padded past each length
    labels = np.array([[1, 1, 0], [2, 0, 0]], np.int64)
    want = [[_ctc_brute(logits[:lengths[b], b], labels[b, :label_lengths[b]], 0)]
            for b in range(2)]
    inputs = {"Logits": logits, "Label": labels, "LogitsLength": lengths,
              "LabelLength": label_lengths}
    got = check_op("warpctc", inputs, {"blank": 0}, {"Loss": np.array(want)}, rtol=1e-6)
    grad = np.asarray(got["WarpCTCGrad"][0])
    assert grad.shape == (5, 2, 3) and not grad[4:, 0].any() and not grad[3:, 1].any()
    check_grad("warpctc", inputs, {"blank": 0}, wrt=("Logits",), out_slot="Loss")


def test_warpctc_padded_lengths_are_checked():
    inputs = {"Logits": np.zeros((3, 2, 4)), "Label": np.ones((2, 2), np.int64),
              "LogitsLength": np.array([3, 4], np.int64), "LabelLength": np.array([1, 1], np.int64)}
    with pytest.raises(PaddleIRError, match=r"LogitsLength must hold 2 lengths in \[0, 3\]"):
        check_op("warpctc", inputs)
