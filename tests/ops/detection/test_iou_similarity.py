"""iou_similarity against IoU written out per pair."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op

rng = np.random.RandomState(81)


def _iou(a, b, normalized):
    e = 0 if normalized else 1
    w = min(a[2], b[2]) - max(a[0], b[0]) + e
    h = min(a[3], b[3]) - max(a[1], b[1]) + e
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    area = lambda t: (t[2] - t[0] + e) * (t[3] - t[1] + e)  # noqa: E731
    return inter / (area(a) + area(b) - inter)


def _boxes(k, span):
    low = rng.uniform(0, span, (k, 2))
    return np.hstack([low, low + rng.uniform(0.05 * span, span, (k, 2))]).astype(np.float32)


@pytest.mark.parametrize("normalized,span", [(True, 1.0), (False, 20.0)])
def test_iou_similarity(normalized, span):
    x, y = _boxes(5, span), _boxes(4, span)
    want = np.array([[_iou(a, b, normalized) for b in y] for a in x], np.float32)
    check_op("iou_similarity", {"X": LoDTensor(x, [[0, 2, 5]]), "Y": y},
             {"box_normalized": normalized}, {"Out": LoDTensor(want, [[0, 2, 5]])})


def test_errors():
    with pytest.raises(ProgramError, match=r"Y must be \[boxes, 4\]"):
        check_op("iou_similarity", {"X": np.ones((2, 4), np.float32),
                                    "Y": np.ones((2, 5), np.float32)})
